package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.config.ClusterAliasValidator;
import io.jetstream.kafka.connect.common.config.ClusterClientConfigs;
import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.CrossFieldValidation;
import io.jetstream.kafka.connect.common.config.IntegrityConfigs;
import io.jetstream.kafka.connect.common.config.NonEmptyListValidator;
import io.jetstream.kafka.connect.common.config.OrUnset;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.core.model.RoundTripLingerPolicy;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.schema.RegistryClientSettings;
import io.jetstream.kafka.schema.SchemaRegistryConfigs;
import io.jetstream.kafka.source.sender.SenderSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * Configuration of the source-site connector (a Connect sink connector: it reads the topics named
 * by Connect's own {@code topics} or {@code topics.regex} and ships them to relays). The raw map
 * stops here: accessors return typed values.
 */
public class SourceSiteConfig extends AbstractConfig {

    public static final String SOURCE_ALIAS = "source.cluster.alias";
    public static final String TARGET_ALIAS = "target.cluster.alias";
    public static final String SOURCE_BOOTSTRAP = "source.cluster.bootstrap.servers";
    public static final String BATCH_MAX_BYTES = "batch.max.bytes";
    public static final String BATCH_MAX_RECORDS = "batch.max.records";
    public static final String BATCH_LINGER_MS = "batch.linger.ms";
    /** The longest the linger waits when {@value #BATCH_LINGER_MS} is unset and it follows the path. */
    public static final Duration DEFAULT_LINGER_CEILING = Duration.ofMillis(20);
    public static final String COMPRESSION = "compression.type";
    public static final String POLL_MIN_INTERVAL_MS = "poll.min.interval.ms";
    public static final String FRAME_MAX_PARTITIONS = "frame.max.partitions";
    public static final String MAX_IN_FLIGHT_BYTES = "max.in.flight.bytes";
    public static final String ACK_TIMEOUT_MS = "ack.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String METADATA_REFRESH_MS = "topic.metadata.refresh.interval.ms";
    public static final String CLUSTER_CALL_TIMEOUT_MS = "cluster.call.timeout.ms";
    public static final String RELAYS_PREFER_LOCAL = "relays.prefer.local";
    public static final String HEARTBEAT_INTERVAL_MS = "replication.heartbeat.interval.ms";
    /**
     * Connect's per-connector override of the consumer's isolation level. Declared here so that a
     * missing or wrong value fails validation on this key: the worker builds the consumer, and only
     * {@code read_committed} keeps records of aborted and open transactions out of the replica.
     */
    public static final String CONSUMER_ISOLATION_LEVEL = "consumer.override.isolation.level";
    /**
     * Connect's per-connector override of where the consumer starts a partition without a committed
     * offset. Declared so that anything but {@code earliest} fails validation on this key: any other
     * value skips the first records of new partitions and topics without a trace.
     */
    public static final String CONSUMER_AUTO_OFFSET_RESET = "consumer.override.auto.offset.reset";

    /**
     * A key of earlier releases, no longer declared: it chose between the fixed caps and an adaptive
     * batching policy, which was removed (docs/model.md, "Why there is no adaptive batching"). Kafka
     * Connect passes undeclared keys through without a word, so a configuration that still asks for
     * the adaptive policy would silently get fixed caps; {@link #crossFieldErrors} refuses any value
     * but {@value #REMOVED_POLICY_VALUE}, which meant what batching is now (the connector warns of it).
     */
    public static final String REMOVED_BATCH_POLICY = "batch.policy";
    /** The one value of {@value #REMOVED_BATCH_POLICY} still accepted: what batching is now. */
    static final String REMOVED_POLICY_VALUE = "fixed";

    /** Connect's own key of a sink connector: the topic names its consumer subscribes to. */
    static final String CONNECT_TOPICS = "topics";
    /** What Kafka allows in a topic name. */
    private static final java.util.regex.Pattern TOPIC_NAME = java.util.regex.Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    /** Most batches a task keeps unacknowledged; max.in.flight.bytes usually binds first. */
    static final int MAX_WINDOW_BATCHES = 1024;

    /** Hard cap of an encoded batch: below the relays' default maximum frame size (16 MiB). */
    public static final int BATCH_MAX_BYTES_LIMIT = 8 * 1024 * 1024;

    private static final String CLUSTERS = "Clusters";
    private static final String SOURCE_SECURITY = "Source cluster security";
    private static final String BATCHING = "Batching";
    private static final String DELIVERY = "Delivery";
    private static final String CONSUMER = "Consumer";

    public static final ConfigDef CONFIG_DEF = configDef();

    public SourceSiteConfig(Map<String, String> props) {
        this(CONFIG_DEF, props);
    }

    /** For the task configuration, whose definition extends this one. */
    protected SourceSiteConfig(ConfigDef definition, Map<String, String> props) {
        super(definition, props);
        crossCheck();
    }

    static ConfigDef configDef() {
        ConfigDef def = new ConfigDef()
                .define(SOURCE_ALIAS, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ClusterAliasValidator(),
                        Importance.HIGH, "Alias of this (the source) Kafka cluster. Replicated topics are named "
                                + "<alias>.<topic> at the destination by default.",
                        CLUSTERS, 1, Width.SHORT, "Source cluster alias")
                .define(TARGET_ALIAS, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ClusterAliasValidator(),
                        Importance.HIGH, "Alias of the destination cluster; also the destination name the relays "
                                + "route on. Topics that came from that cluster (named <target alias>.*) are never "
                                + "sent back to it.",
                        CLUSTERS, 2, Width.SHORT, "Target cluster alias")
                .define(SOURCE_BOOTSTRAP, Type.LIST, ConfigDef.NO_DEFAULT_VALUE,
                        new NonEmptyListValidator("the source cluster's brokers (host:port)"),
                        Importance.HIGH, "Bootstrap servers of the source cluster for the connector's own Kafka "
                                + "clients, which read topic metadata (partition count and configs) that the "
                                + "destination needs to create topics, and the log start and committed offsets that "
                                + "vouch for skipped offsets. They take the source.cluster.security.protocol, ssl.* "
                                + "and sasl.* keys below; the consumer that reads the topics is the worker's.",
                        CLUSTERS, 3, Width.LONG, "Source bootstrap servers")
                .define(BATCH_MAX_BYTES, Type.INT, 1024 * 1024,
                        ConfigDef.Range.between(1024, BATCH_MAX_BYTES_LIMIT), Importance.MEDIUM,
                        "Upper bound of a batch's uncompressed size; a batch closes when it reaches it.",
                        BATCHING, 1, Width.SHORT, "Batch max bytes")
                .define(BATCH_MAX_RECORDS, Type.INT, 10_000, ConfigDef.Range.between(1, 1_000_000),
                        Importance.MEDIUM, "Upper bound of the records in a batch.",
                        BATCHING, 2, Width.SHORT, "Batch max records")
                .define(BATCH_LINGER_MS, Type.LONG, null, new OrUnset(ConfigDef.Range.between(0, 60_000)),
                        Importance.MEDIUM, "Longest time a record waits for its batch to fill before the batch "
                                + "is sent anyway. Unset (the default), the linger follows the path: 5 ms plus a "
                                + "fortieth of the shortest recent round trip to the egress relay (a batch's "
                                + "receipt), at most " + DEFAULT_LINGER_CEILING.toMillis() + " ms, and "
                                + DEFAULT_LINGER_CEILING.toMillis() + " ms until the first receipt: 6.25 ms at a "
                                + "50 ms round trip, 8.75 ms at 150 ms; a short path pays few milliseconds for its "
                                + "batches, a long one lingers longer for less CPU. Set, it is the linger, fixed. "
                                + "While sealed batches wait for the in-flight window, a partition with batches "
                                + "unacknowledged keeps filling its batch past the linger, up to the caps: it could "
                                + "not leave sooner, and fuller batches cost the path less.",
                        BATCHING, 3, Width.SHORT, "Batch linger (ms)")
                .define(COMPRESSION, Type.STRING, "zstd",
                        ConfigDef.ValidString.in("none", "gzip", "snappy", "lz4", "zstd"), Importance.MEDIUM,
                        "Codec that compresses each batch before it crosses the WAN. zstd (level 3) costs about "
                                + "7 ms of CPU per MB of records and usually saves a third or more of the WAN "
                                + "bytes, which on a capped uplink is that much more throughput; lz4 and snappy "
                                + "are cheaper but find little in payloads without repeats; none when CPU, not "
                                + "the link, is what binds.",
                        BATCHING, 4, Width.SHORT, "Compression")
                .define(POLL_MIN_INTERVAL_MS, Type.LONG, 5L, ConfigDef.Range.between(0, 1_000), Importance.LOW,
                        "Shortest time between two deliveries of records from the task's consumer: a put that "
                                + "carried records returns no sooner than this after the previous one did, so that "
                                + "while records trickle in the consumer fetches several per round instead of one "
                                + "(at a steady low rate those rounds are most of the task's CPU, and at many "
                                + "partitions each costs more). Adds at most this much to a record's latency, "
                                + "usually nothing (records wait for their batch's linger anyway); no cost when idle "
                                + "or under a backlog. 0 turns it off.",
                        BATCHING, 5, Width.SHORT, "Poll min interval (ms)")
                .define(FRAME_MAX_PARTITIONS, Type.INT, SenderSettings.DEFAULT_FRAME_MAX_PARTITIONS,
                        ConfigDef.Range.between(1, BatchesFrame.MAX_SECTIONS), Importance.MEDIUM,
                        "The most partitions whose batches one frame carries: the batches a task sends to a relay "
                                + "at the same moment (those of one put or one tick) leave together in frames of up "
                                + "to this many partitions, so the per-frame costs (relay routing, acknowledgements, "
                                + "MACs) are paid once per frame, not once per partition: at many partitions and a "
                                + "steady rate most batches carry a record or two. Each partition's batch keeps its "
                                + "own offsets, order and retries. 1 sends one frame per partition as protocol "
                                + "version 2 did.",
                        BATCHING, 6, Width.SHORT, "Frame max partitions")
                .define(MAX_IN_FLIGHT_BYTES, Type.LONG, 64L * 1024 * 1024,
                        ConfigDef.Range.between(64 * 1024, 4L * 1024 * 1024 * 1024), Importance.MEDIUM,
                        "Per task: bytes sent and not yet acknowledged by the destination. When reached, the "
                                + "task pauses its partitions (backpressure) instead of buffering more.",
                        DELIVERY, 1, Width.SHORT, "Max in-flight bytes")
                .define(ACK_TIMEOUT_MS, Type.LONG, 30_000L, ConfigDef.Range.between(100, 3_600_000),
                        Importance.MEDIUM, "A batch not acknowledged within this time is sent again "
                                + "(on another relay when there is one). The destination drops duplicates.",
                        DELIVERY, 2, Width.SHORT, "Ack timeout (ms)")
                .define(RETRY_BACKOFF_MS, Type.LONG, 200L, ConfigDef.Range.between(0, 60_000),
                        Importance.LOW, "Pause before re-sending a batch that was negatively acknowledged.",
                        DELIVERY, 3, Width.SHORT, "Retry backoff (ms)")
                .define(METADATA_REFRESH_MS, Type.LONG, 30_000L, ConfigDef.Range.between(1_000, 3_600_000),
                        Importance.LOW, "How often partition counts and configs of replicated topics are "
                                + "re-read and shipped, so the destination grows topics that grew. The topic ids "
                                + "read with them reveal a topic deleted and recreated while the consumer read on "
                                + "into it from its old position.",
                        DELIVERY, 4, Width.SHORT, "Metadata refresh (ms)")
                .define(CLUSTER_CALL_TIMEOUT_MS, Type.LONG, 10_000L, ConfigDef.Range.between(100, 300_000),
                        Importance.LOW, "Longest a task waits for one call to the source cluster's Admin API "
                                + "from put(): asking whether offsets its consumer skipped were legitimately absent "
                                + "(log start offsets, committed offsets). A call that takes longer fails "
                                + "retriably: Connect hands the same records over again after a pause; nothing is "
                                + "lost or skipped. Bounds how long a source broker outage can hold put().",
                        DELIVERY, 5, Width.SHORT, "Cluster call timeout (ms)")
                .define(HEARTBEAT_INTERVAL_MS, Type.LONG, 5_000L, ConfigDef.Range.between(100, 3_600_000),
                        Importance.LOW, "End-to-end liveness and lag: a partition that made no batch for this "
                                + "long, and has nothing unacknowledged, sends an empty batch through the relays to "
                                + "the destination task (signed like any batch), whose heartbeat-age-seconds then "
                                + "stays near this interval while topics are idle; the origin end offsets behind "
                                + "replication-lag-records are read at the same interval.",
                        DELIVERY, 6, Width.SHORT, "End-to-end heartbeat interval (ms)")
                .define(CONSUMER_ISOLATION_LEVEL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE,
                        new ReadCommittedValidator(), Importance.HIGH,
                        "Required, and must be read_committed. Connect's override of the isolation level of the "
                                + "consumer the worker builds for this connector's tasks: with read_committed they "
                                + "receive only records of committed transactions, and a partition with an open "
                                + "transaction waits until it ends; with Kafka's default (read_uncommitted) records "
                                + "of aborted transactions would reach the destination as committed records. The "
                                + "worker must allow the override: connector.client.config.override.policy=All "
                                + "(Kafka's default), or isolation.level in its allowlist.",
                        CONSUMER, 1, Width.SHORT, "Consumer isolation level")
                .define(CONSUMER_AUTO_OFFSET_RESET, Type.STRING, null, new EarliestValidator(), Importance.HIGH,
                        "Optional; when set, must be earliest. Connect's override of where the consumer of this "
                                + "connector's tasks starts a partition that has no committed offset (a new "
                                + "partition, a new topic matching topics.regex, a first deployment): earliest "
                                + "starts at its first record. Unset, Connect's own default for sink connectors "
                                + "applies (earliest) unless the worker sets consumer.auto.offset.reset, which this "
                                + "connector cannot see: never set it to anything but earliest on the workers of "
                                + "the source site. latest (or by_duration) would skip the records a partition "
                                + "received before the consumer first read it, and the destination could not tell "
                                + "(it has written nothing of the partition); none fails the tasks on every new "
                                + "partition. A task whose consumer starts a partition above its log start offset "
                                + "logs a WARN and counts it in consumer-started-past-log-start-total.",
                        CONSUMER, 2, Width.SHORT, "Consumer reset of new partitions");
        ClusterClientConfigs.define(def, ClusterClientConfigs.SOURCE_PREFIX, SOURCE_SECURITY, "the source cluster");
        RelayClientConfigs.define(def,
                "Relays of the source site this connector sends batches to (host:port of their data "
                        + "listeners); with several, batches are spread over them and re-sent on another "
                        + "when one fails.");
        def.define(RELAYS_PREFER_LOCAL, Type.BOOLEAN, false, Importance.MEDIUM,
                "Each task sends to the relays of 'relays' that run on its own worker's host (a loopback "
                        + "address, an address of one of the host's network interfaces, or a name that resolves "
                        + "to one), and to the others only while none of those is ready. With a relay on each "
                        + "host of the source Connect cluster, the tasks on each host then use that host's uplink: "
                        + "three worker hosts, three uplinks, without intermediate relays. When no listed relay is "
                        + "on the task's host, it uses them all as without this setting (logged at task start).",
                RelayClientConfigs.GROUP, 100, Width.SHORT, "Prefer relays on this host");
        IntegrityConfigs.defineKey(def, "Here: every batch and topic metadata is signed, and an answer "
                + "that would commit a batch or stop the task (OK, or a NACK that re-sending cannot help) counts "
                + "only with the destination's valid MAC; any other is taken for a retriable NACK (the batch is "
                + "sent again, never committed or dropped on its word), counted in unverified-acks-total and "
                + "logged.");
        return SchemaRegistryConfigs.define(def, "Here: each schema id met in a record key or value is looked up "
                + "once in this site's registry and the schema is shipped to the destination with the topic's "
                + "metadata (once per topic and id, not per record). While the registry cannot be reached, Connect "
                + "hands the records over again after a pause; nothing is sent without its schema.",
                "The source site's registry: the one whose ids the records carry.");
    }

    /** Accepts only {@code read_committed}, saying why. */
    static final class ReadCommittedValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!"read_committed".equals(value)) {
                throw new ConfigException(name, value, "must be read_committed: with any other isolation level the "
                        + "source-site tasks would receive, and replicate as committed, records of transactions that "
                        + "were aborted or are still open");
            }
        }

        @Override
        public String toString() {
            return "read_committed";
        }
    }

    /** Accepts only {@code earliest} (any case) or no value, saying why. */
    static final class EarliestValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            boolean earliest = value == null || "earliest".equalsIgnoreCase(((String) value).trim());
            if (!earliest) {
                throw new ConfigException(name, value, "must be earliest (or unset): with any other reset the "
                        + "source-site tasks would start new partitions and topics after their first records, "
                        + "which would never be replicated, and the destination could not tell");
            }
        }

        @Override
        public String toString() {
            return "earliest";
        }
    }

    private void crossCheck() {
        Map<String, String> props = originalsStrings();
        CrossFieldValidation.throwFirst(CONFIG_DEF, props, crossFieldErrors(props));
    }

    /** Errors that involve several keys, each keyed by the key it concerns. */
    public static Map<String, String> crossFieldErrors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>(
                CrossFieldValidation.commonErrors(props, SOURCE_ALIAS, TARGET_ALIAS));
        ClusterClientConfigs.errors(props, ClusterClientConfigs.SOURCE_PREFIX).forEach(errors::putIfAbsent);
        SchemaRegistryConfigs.errors(props).forEach(errors::putIfAbsent);
        String policy = props.get(REMOVED_BATCH_POLICY);
        if (policy != null && !REMOVED_POLICY_VALUE.equalsIgnoreCase(policy.trim())) {
            errors.putIfAbsent(REMOVED_BATCH_POLICY, REMOVED_BATCH_POLICY + " was removed in this release: batching "
                    + "follows the batch.* caps (" + BATCH_MAX_RECORDS + ", " + BATCH_MAX_BYTES + ", "
                    + BATCH_LINGER_MS + "), for the adaptive policy was not needed anywhere in the benchmarks' "
                    + "environment grid (docs/model.md). Remove the key (" + REMOVED_BATCH_POLICY + "="
                    + REMOVED_POLICY_VALUE + " is still accepted, with a warning).");
        }
        String topics = props.get(CONNECT_TOPICS);
        if (topics != null) {
            for (String topic : topics.split(",")) {
                if (!topic.isBlank() && !TOPIC_NAME.matcher(topic.trim()).matches()) {
                    errors.putIfAbsent(CONNECT_TOPICS, "'" + topic.trim() + "' is not a topic name: Kafka Connect's "
                            + CONNECT_TOPICS + " lists topic names; regular expressions (MirrorMaker 2's topics) go "
                            + "in topics.regex, joined with '|'");
                }
            }
        }
        return errors;
    }

    public String sourceAlias() {
        return getString(SOURCE_ALIAS);
    }

    public String targetAlias() {
        return getString(TARGET_ALIAS);
    }

    /** How the connector's own clients (Admin) reach the source cluster: bootstrap servers and security. */
    public ClusterClients sourceCluster() {
        return ClusterClientConfigs.clients(this, ClusterClientConfigs.SOURCE_PREFIX, "source cluster");
    }

    /**
     * Whether the configuration still carries the removed {@value #REMOVED_BATCH_POLICY} (then with
     * the value {@value #REMOVED_POLICY_VALUE}: any other fails validation), for a warning.
     */
    public boolean carriesRemovedBatchPolicy() {
        return originalsStrings().containsKey(REMOVED_BATCH_POLICY);
    }

    /**
     * The batching policy: the configured caps; with {@value #BATCH_LINGER_MS} unset, a linger that follows
     * the path's round trip up to {@link #DEFAULT_LINGER_CEILING} ({@link RoundTripLingerPolicy}), else
     * the configured linger, fixed.
     */
    public BatchPolicy batchPolicy() {
        BatchDecision caps = new BatchDecision(batchMaxRecords(), batchMaxBytes(), batchLinger(),
                MAX_WINDOW_BATCHES, maxInFlightBytes());
        return lingerFollowsPath() ? new RoundTripLingerPolicy(caps) : new FixedBatchPolicy(caps);
    }

    /** Whether the linger follows the path ({@value #BATCH_LINGER_MS} unset). */
    public boolean lingerFollowsPath() {
        return getLong(BATCH_LINGER_MS) == null;
    }

    public int batchMaxBytes() {
        return getInt(BATCH_MAX_BYTES);
    }

    public int batchMaxRecords() {
        return getInt(BATCH_MAX_RECORDS);
    }

    /** The configured linger, or with none configured the longest the path-following linger waits. */
    public Duration batchLinger() {
        Long linger = getLong(BATCH_LINGER_MS);
        return linger == null ? DEFAULT_LINGER_CEILING : Duration.ofMillis(linger);
    }

    public String compressionName() {
        return getString(COMPRESSION);
    }

    public long maxInFlightBytes() {
        return getLong(MAX_IN_FLIGHT_BYTES);
    }

    public Duration ackTimeout() {
        return Duration.ofMillis(getLong(ACK_TIMEOUT_MS));
    }

    public Duration retryBackoff() {
        return Duration.ofMillis(getLong(RETRY_BACKOFF_MS));
    }

    public Duration clusterCallTimeout() {
        return Duration.ofMillis(getLong(CLUSTER_CALL_TIMEOUT_MS));
    }

    /** End-to-end heartbeat and lag refresh interval ({@value #HEARTBEAT_INTERVAL_MS}). */
    public Duration heartbeatInterval() {
        return Duration.ofMillis(getLong(HEARTBEAT_INTERVAL_MS));
    }

    /** The most partitions one frame carries ({@value #FRAME_MAX_PARTITIONS}). */
    public int frameMaxPartitions() {
        return getInt(FRAME_MAX_PARTITIONS);
    }

    /** Shortest time between two puts that carry records ({@value #POLL_MIN_INTERVAL_MS}). */
    public Duration pollMinInterval() {
        return Duration.ofMillis(getLong(POLL_MIN_INTERVAL_MS));
    }

    public Duration metadataRefresh() {
        return Duration.ofMillis(getLong(METADATA_REFRESH_MS));
    }

    /** The end-to-end integrity key ({@value IntegrityConfigs#KEY}), if set. */
    public Optional<byte[]> integrityKey() {
        return IntegrityConfigs.key(this);
    }

    /** Whether tasks prefer the relays on their own worker's host ({@value #RELAYS_PREFER_LOCAL}). */
    public boolean preferLocalRelays() {
        return getBoolean(RELAYS_PREFER_LOCAL);
    }

    /** Whether schema ids are looked up and their schemas shipped ({@value SchemaRegistryConfigs#ENABLED}). */
    public boolean schemaTranslation() {
        return SchemaRegistryConfigs.enabled(this);
    }

    /** How to reach this site's schema registry. */
    public RegistryClientSettings schemaRegistry() {
        return SchemaRegistryConfigs.settings(this);
    }

    /** The relay settings; the stream id defaults to {@code connectorName}. */
    public RelayClientConfigs.Settings relays(String connectorName) {
        return RelayClientConfigs.settings(this, connectorName);
    }
}
