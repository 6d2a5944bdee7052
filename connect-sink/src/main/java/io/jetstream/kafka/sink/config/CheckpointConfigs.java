package io.jetstream.kafka.sink.config;

import io.jetstream.kafka.connect.common.config.ClusterClientConfigs;
import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.RegexValidator;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The destination-site connector's keys for consumer group checkpoints and offset sync
 * ({@code docs/failover.md}), named as MirrorMaker 2 names them where it has the same thing.
 */
public final class CheckpointConfigs {

    public static final String ENABLED = "emit.checkpoints.enabled";
    public static final String INTERVAL_MS = "emit.checkpoints.interval.ms";
    public static final String GROUPS = "groups";
    public static final String GROUPS_EXCLUDE = "groups.exclude";
    /** MirrorMaker 2's default exclusions: tools and Connect's own groups. */
    static final String DEFAULT_GROUPS_EXCLUDE = "console-consumer-.*,connect-.*,__.*";
    public static final String TOPIC = "checkpoints.topic";
    public static final String DEFAULT_TOPIC = "jetstream-checkpoints.internal";
    public static final String FORMAT = "checkpoints.format";
    public static final String SYNC_ENABLED = "sync.group.offsets.enabled";
    public static final String SYNC_INTERVAL_MS = "sync.group.offsets.interval.ms";
    public static final String SOURCE_BOOTSTRAP = ClusterClientConfigs.SOURCE_PREFIX + "bootstrap.servers";

    private static final String GROUP = "Consumer group checkpoints";
    private static final String SOURCE_SECURITY = "Source cluster security (checkpoints)";

    private CheckpointConfigs() {
    }

    static ConfigDef define(ConfigDef def) {
        def.define(ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                        "Checkpoint the source cluster's consumer groups: every " + INTERVAL_MS + " the connector reads "
                                + "the committed positions of the groups matching " + GROUPS + " (and not "
                                + GROUPS_EXCLUDE + ") on the topics it replicates from the source cluster ("
                                + SOURCE_BOOTSTRAP + "), translates them exactly through the offset map and writes "
                                + "them to " + TOPIC + " here. Needs offset.map.enabled=true and a route from this "
                                + "connector's worker to the source cluster's brokers.",
                        GROUP, 1, Width.SHORT, "Emit checkpoints")
                .define(INTERVAL_MS, Type.LONG, 60_000L, ConfigDef.Range.between(1_000L, 86_400_000L), Importance.LOW,
                        "How often group positions are read, translated and checkpointed.",
                        GROUP, 2, Width.SHORT, "Checkpoint interval (ms)")
                .define(GROUPS, Type.LIST, ".*", new RegexListValidator(), Importance.MEDIUM,
                        "Regular expressions over consumer group ids: the groups checkpointed (MirrorMaker 2's key).",
                        GROUP, 3, Width.LONG, "Groups")
                .define(GROUPS_EXCLUDE, Type.LIST, DEFAULT_GROUPS_EXCLUDE, new RegexListValidator(), Importance.LOW,
                        "Regular expressions over consumer group ids: groups never checkpointed, even when they match "
                                + GROUPS + " (MirrorMaker 2's key and default).",
                        GROUP, 4, Width.LONG, "Groups excluded")
                .define(TOPIC, Type.STRING, DEFAULT_TOPIC, new OffsetMapConfigs.TopicNameValidator(), Importance.LOW,
                        "Topic here that holds the checkpoints, compacted, keyed '<group>/<source alias>/<topic>/"
                                + "<partition>' with a JSON value {upstreamOffset, downstreamTopic, downstreamOffset}. "
                                + "Created when missing (one partition, create.topics.replication.factor).",
                        GROUP, 5, Width.LONG, "Checkpoints topic")
                .define(FORMAT, Type.STRING, "jetstream", ConfigDef.ValidString.in("jetstream", "mm2"),
                        Importance.LOW, "Format of the records in " + TOPIC + ". 'jetstream': the JSON described "
                                + "there. 'mm2': MirrorMaker 2's checkpoint records (key group, downstream topic and "
                                + "partition; value upstream offset, downstream offset, metadata, version 0), so that "
                                + "MM2's tooling (RemoteClusterUtils.translateOffsets, MirrorClient) reads them: set "
                                + TOPIC + " to the name it reads, <source alias>.checkpoints.internal "
                                + "(docs/migrating-from-mm2.md).",
                        GROUP, 6, Width.SHORT, "Checkpoints format")
                .define(SYNC_ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                        "Commit the translated positions here for groups that have no active member here, every "
                                + SYNC_INTERVAL_MS + " (MirrorMaker 2's key). A group's position here only moves "
                                + "forward: a group that has read further here is left alone.",
                        GROUP, 7, Width.SHORT, "Sync group offsets")
                .define(SYNC_INTERVAL_MS, Type.LONG, 60_000L, ConfigDef.Range.between(1_000L, 86_400_000L),
                        Importance.LOW, "How often translated positions are committed into idle groups here.",
                        GROUP, 8, Width.SHORT, "Group offset sync interval (ms)")
                .define(SOURCE_BOOTSTRAP, Type.LIST, "", Importance.MEDIUM,
                        "Checkpoints only: bootstrap servers of the source cluster, whose consumer groups' committed "
                                + "positions the connector reads. Takes the source.cluster.security.protocol, ssl.* "
                                + "and sasl.* keys below. Required when " + ENABLED + "=true.",
                        GROUP, 9, Width.LONG, "Source bootstrap servers");
        return ClusterClientConfigs.define(def, ClusterClientConfigs.SOURCE_PREFIX, SOURCE_SECURITY,
                "the source cluster (checkpoints)");
    }

    static Map<String, String> errors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>();
        if (!"true".equalsIgnoreCase(props.getOrDefault(ENABLED, "false").trim())) {
            if ("true".equalsIgnoreCase(props.getOrDefault(SYNC_ENABLED, "false").trim())) {
                errors.put(SYNC_ENABLED, "needs " + ENABLED + "=true");
            }
            return errors;
        }
        if (props.getOrDefault(SOURCE_BOOTSTRAP, "").isBlank()) {
            errors.put(SOURCE_BOOTSTRAP, "is required while " + ENABLED + "=true (the groups' positions are read there)");
        }
        if ("false".equalsIgnoreCase(props.getOrDefault(OffsetMapConfigs.ENABLED, "true").trim())) {
            errors.put(ENABLED, "needs " + OffsetMapConfigs.ENABLED + "=true: positions are translated through the map");
        }
        ClusterClientConfigs.errors(props, ClusterClientConfigs.SOURCE_PREFIX).forEach(errors::putIfAbsent);
        return errors;
    }

    public static boolean enabled(AbstractConfig config) {
        return config.getBoolean(ENABLED);
    }

    public static Duration interval(AbstractConfig config) {
        return Duration.ofMillis(config.getLong(INTERVAL_MS));
    }

    public static boolean syncEnabled(AbstractConfig config) {
        return config.getBoolean(SYNC_ENABLED);
    }

    public static Duration syncInterval(AbstractConfig config) {
        return Duration.ofMillis(config.getLong(SYNC_INTERVAL_MS));
    }

    /** Whether checkpoints are written as MirrorMaker 2 writes them ({@value #FORMAT}=mm2). */
    public static boolean mm2Format(AbstractConfig config) {
        return "mm2".equals(config.getString(FORMAT));
    }

    public static String topic(AbstractConfig config) {
        return config.getString(TOPIC);
    }

    /** The groups to checkpoint: matching one of {@value #GROUPS} and none of {@value #GROUPS_EXCLUDE}. */
    public static GroupFilter groupFilter(AbstractConfig config) {
        return new GroupFilter(compile(config.getList(GROUPS)), compile(config.getList(GROUPS_EXCLUDE)));
    }

    public static ClusterClients sourceCluster(AbstractConfig config) {
        return ClusterClientConfigs.clients(config, ClusterClientConfigs.SOURCE_PREFIX, "source cluster");
    }

    private static List<Pattern> compile(List<String> regexes) {
        return regexes.stream().map(Pattern::compile).toList();
    }

    /** Group ids to checkpoint. */
    public record GroupFilter(List<Pattern> include, List<Pattern> exclude) {
        public boolean accepts(String group) {
            return include.stream().anyMatch(p -> p.matcher(group).matches())
                    && exclude.stream().noneMatch(p -> p.matcher(group).matches());
        }
    }

    /** Every element a valid regular expression. */
    static final class RegexListValidator implements ConfigDef.Validator {
        private final RegexValidator regex = new RegexValidator();

        @Override
        @SuppressWarnings("unchecked")
        public void ensureValid(String name, Object value) {
            for (String element : (List<String>) value) {
                regex.ensureValid(name, element);
            }
        }

        @Override
        public String toString() {
            return "a list of Java regular expressions";
        }
    }
}
