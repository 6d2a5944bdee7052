package io.jetstream.kafka.sink.config;

import io.jetstream.kafka.connect.common.config.OrUnset;
import io.jetstream.kafka.sink.naming.ReplicationPolicyNaming;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * MirrorMaker 2's spellings of keys the destination-site connector has under its own names
 * ({@code docs/migrating-from-mm2.md}). Each alias is declared with a validator that accepts what the
 * key it stands for accepts (so Connect's validation names the alias), and stands for that key: its
 * value, translated ({@code topics}' list of regular expressions joined with '|' as MM2 joins it, seconds
 * times 1000), is what the connector reads under the key. Setting both spellings to different values is
 * an error naming both.
 */
final class MirrorMakerAliases {

    static final String TOPICS = "topics";
    static final String REPLICATION_POLICY_CLASS = "replication.policy.class";
    static final String REPLICATION_POLICY_SEPARATOR = "replication.policy.separator";
    static final String EMIT_CHECKPOINTS_INTERVAL_SECONDS = "emit.checkpoints.interval.seconds";
    static final String SYNC_GROUP_OFFSETS_INTERVAL_SECONDS = "sync.group.offsets.interval.seconds";

    static final String GROUP = "MirrorMaker 2 spellings";

    /** An alias, the key it stands for, and its parsed value as a value of that key. */
    record Alias(String key, String standsFor, Function<Object, String> translate) {
    }

    static final List<Alias> ALIASES = List.of(
            new Alias(TOPICS, SinkSiteConfig.TOPICS_ALLOW, value -> String.join("|", asList(value))),
            new Alias(REPLICATION_POLICY_CLASS, SinkSiteConfig.TOPIC_NAMING, value -> (String) value),
            new Alias(REPLICATION_POLICY_SEPARATOR, SinkSiteConfig.TOPIC_SEPARATOR, value -> (String) value),
            new Alias(EMIT_CHECKPOINTS_INTERVAL_SECONDS, CheckpointConfigs.INTERVAL_MS,
                    value -> Long.toString((Long) value * 1000)),
            new Alias(SYNC_GROUP_OFFSETS_INTERVAL_SECONDS, CheckpointConfigs.SYNC_INTERVAL_MS,
                    value -> Long.toString((Long) value * 1000)));

    private MirrorMakerAliases() {
    }

    static ConfigDef define(ConfigDef def) {
        int order = 0;
        def.define(TOPICS, Type.LIST, null, new OrUnset(new CheckpointConfigs.RegexListValidator()), Importance.LOW,
                "MirrorMaker 2's spelling of " + SinkSiteConfig.TOPICS_ALLOW + ": a list of regular expressions "
                        + "over origin topic names, joined with '|' as MM2 joins them (a,b is a|b). "
                        + SinkSiteConfig.TOPICS_EXCLUDE + " applies to it as to " + SinkSiteConfig.TOPICS_ALLOW
                        + ". Set one of the two, or both to the same value.",
                GROUP, ++order, Width.LONG, "Topics (MM2)");
        def.define(REPLICATION_POLICY_CLASS, Type.STRING, null, new OrUnset(new SinkSiteConfig.TopicNamingValidator()),
                Importance.LOW, "MirrorMaker 2's spelling of " + SinkSiteConfig.TOPIC_NAMING + ": "
                        + TopicNamingPolicy.MM2_DEFAULT_POLICY + " is 'prefix', " + TopicNamingPolicy.MM2_IDENTITY_POLICY
                        + " is 'identity' (neither needs MirrorMaker's jar); any other class implementing "
                        + ReplicationPolicyNaming.REPLICATION_POLICY + " names destination topics with its "
                        + "formatRemoteTopic(source alias, topic) and tells replicas with its topicSource(topic), "
                        + "configured with this connector's configuration (connect-mirror-client must be on the "
                        + "worker's class path, as in Kafka's distribution).",
                GROUP, ++order, Width.LONG, "Replication policy (MM2)");
        def.define(REPLICATION_POLICY_SEPARATOR, Type.STRING, null, new OrUnset(new ConfigDef.NonEmptyString()),
                Importance.LOW, "MirrorMaker 2's spelling of " + SinkSiteConfig.TOPIC_SEPARATOR + ".",
                GROUP, ++order, Width.SHORT, "Replication policy separator (MM2)");
        def.define(EMIT_CHECKPOINTS_INTERVAL_SECONDS, Type.LONG, null, new OrUnset(ConfigDef.Range.between(1L, 86_400L)),
                Importance.LOW, "MirrorMaker 2's spelling of " + CheckpointConfigs.INTERVAL_MS + ", in seconds.",
                GROUP, ++order, Width.SHORT, "Checkpoint interval (s, MM2)");
        def.define(SYNC_GROUP_OFFSETS_INTERVAL_SECONDS, Type.LONG, null,
                new OrUnset(ConfigDef.Range.between(1L, 86_400L)), Importance.LOW,
                "MirrorMaker 2's spelling of " + CheckpointConfigs.SYNC_INTERVAL_MS + ", in seconds.",
                GROUP, ++order, Width.SHORT, "Group offset sync interval (s, MM2)");
        return def;
    }

    /**
     * {@code props} with the key each alias set stands for set to the alias's translated value.
     *
     * @throws ConfigException naming the alias when its value is not valid, or both keys when both are
     *     set to different values
     */
    static Map<String, String> resolve(ConfigDef def, Map<String, String> props) {
        Map<String, String> resolved = new HashMap<>(props);
        for (Alias alias : ALIASES) {
            String raw = props.get(alias.key());
            if (raw == null) {
                continue;
            }
            String translated = alias.translate().apply(parse(def, alias.key(), raw));
            String conflict = conflict(def, alias, props.get(alias.standsFor()), translated);
            if (conflict != null) {
                throw new ConfigException(alias.key(), raw, conflict);
            }
            resolved.put(alias.standsFor(), translated);
        }
        return resolved;
    }

    /** The conflicts between aliases and the keys they stand for, on the alias's key (for Connect's validate). */
    static Map<String, String> errors(ConfigDef def, Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>();
        for (Alias alias : ALIASES) {
            String raw = props.get(alias.key());
            if (raw == null) {
                continue;
            }
            try {
                String conflict = conflict(def, alias, props.get(alias.standsFor()), alias.translate()
                        .apply(parse(def, alias.key(), raw)));
                if (conflict != null) {
                    errors.put(alias.key(), conflict);
                }
            } catch (ConfigException e) {
                // an invalid value: the per-key validation reports it
            }
        }
        return errors;
    }

    private static Object parse(ConfigDef def, String key, String raw) {
        ConfigDef.ConfigKey declared = def.configKeys().get(key);
        Object value = ConfigDef.parseType(key, raw, declared.type);
        declared.validator.ensureValid(key, value);
        return value;
    }

    /** Null when {@code canonicalRaw} is unset or means what {@code translated} does. */
    private static String conflict(ConfigDef def, Alias alias, String canonicalRaw, String translated) {
        if (canonicalRaw == null) {
            return null;
        }
        ConfigDef.Type type = def.configKeys().get(alias.standsFor()).type;
        Object canonical = ConfigDef.parseType(alias.standsFor(), canonicalRaw, type);
        Object mine = ConfigDef.parseType(alias.standsFor(), translated, type);
        if (alias.standsFor().equals(SinkSiteConfig.TOPIC_NAMING)) {
            canonical = TopicNamingPolicy.canonicalSpec((String) canonical);
            mine = TopicNamingPolicy.canonicalSpec((String) mine);
        }
        if (Objects.equals(canonical, mine)) {
            return null;
        }
        return "is MirrorMaker 2's spelling of " + alias.standsFor() + ", which is set too, to a different value ('"
                + canonicalRaw + "' against '" + translated + "'): set " + alias.key() + " or " + alias.standsFor()
                + ", not both";
    }

    @SuppressWarnings("unchecked")
    private static List<String> asList(Object value) {
        return (List<String>) value;
    }
}
