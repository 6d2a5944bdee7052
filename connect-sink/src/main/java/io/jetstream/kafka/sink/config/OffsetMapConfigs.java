package io.jetstream.kafka.sink.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * The destination-site connector's keys for the exact offset map ({@code docs/failover.md}): whether
 * it is written, to which topic, and how long the topic keeps it.
 */
public final class OffsetMapConfigs {

    public static final String ENABLED = "offset.map.enabled";
    public static final String TOPIC = "offset.map.topic";
    public static final String DEFAULT_TOPIC = "jetstream-offset-map.internal";
    public static final String RETENTION_MS = "offset.map.retention.ms";
    static final long DEFAULT_RETENTION_MS = Duration.ofDays(7).toMillis();

    private static final String GROUP = "Offset map";

    private OffsetMapConfigs() {
    }

    static ConfigDef define(ConfigDef def) {
        return def
                .define(ENABLED, Type.BOOLEAN, true, Importance.MEDIUM,
                        "Write the exact offset map: for every run of records of an origin partition written in "
                                + "one poll (one transaction with exactly-once), an entry in " + TOPIC + " with the "
                                + "origin offsets and the destination offsets they got, in the same transaction as "
                                + "the records. It lets consumer groups move between the sites without skipping or "
                                + "re-reading a record (docs/failover.md). With exactly-once it needs Connect's "
                                + "transaction.boundary=poll (the default).",
                        GROUP, 1, Width.SHORT, "Offset map")
                .define(TOPIC, Type.STRING, DEFAULT_TOPIC, new TopicNameValidator(), Importance.LOW,
                        "Topic of this (the destination) cluster that holds the offset map. Created by the tasks "
                                + "when missing (one partition, create.topics.replication.factor, cleanup.policy=delete "
                                + "and " + RETENTION_MS + "). Entries are keyed '<source alias>/<topic>/<partition>', "
                                + "so connectors of several source clusters may share it. The default name ends in "
                                + "'.internal' so that replication in the other direction leaves it alone.",
                        GROUP, 2, Width.LONG, "Offset map topic")
                .define(RETENTION_MS, Type.LONG, DEFAULT_RETENTION_MS, ConfigDef.Range.between(60_000L, Long.MAX_VALUE),
                        Importance.LOW, "retention.ms of the offset map topic when the task creates it: how far back "
                                + "origin positions can be translated. Positions older than the oldest entry kept "
                                + "are reported as not in the map, never guessed. Keep it at least the origin topics' "
                                + "retention, or the longest time a consumer group may stay behind. An existing "
                                + "topic keeps its own configs. About 40-60 bytes per entry; one entry per origin "
                                + "partition per poll.",
                        GROUP, 3, Width.SHORT, "Offset map retention (ms)");
    }

    /** Errors involving Connect's own keys, on the key to change. */
    static Map<String, String> errors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>();
        boolean enabled = !"false".equalsIgnoreCase(props.getOrDefault(ENABLED, "true").trim());
        boolean exactlyOnce = ConnectKeys.exactlyOnce(props);
        String boundary = props.getOrDefault(ConnectKeys.TRANSACTION_BOUNDARY, "poll").trim();
        if (enabled && exactlyOnce && !"poll".equalsIgnoreCase(boundary)) {
            errors.put(ConnectKeys.TRANSACTION_BOUNDARY, "must be 'poll' while " + ENABLED + "=true: the offset map predicts "
                    + "one commit marker per poll in each destination partition (set " + ENABLED + "=false to use '"
                    + boundary + "')");
        }
        return errors;
    }

    public static boolean enabled(AbstractConfig config) {
        return config.getBoolean(ENABLED);
    }

    public static String topic(AbstractConfig config) {
        return config.getString(TOPIC);
    }

    public static Duration retention(AbstractConfig config) {
        return Duration.ofMillis(config.getLong(RETENTION_MS));
    }

    /** A legal Kafka topic name. */
    static final class TopicNameValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                Topic.validate((String) value);
            } catch (InvalidTopicException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "a topic name";
        }
    }
}
