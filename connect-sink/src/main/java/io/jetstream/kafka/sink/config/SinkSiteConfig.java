package io.jetstream.kafka.sink.config;

import io.jetstream.kafka.connect.common.config.ClusterAliasValidator;
import io.jetstream.kafka.connect.common.config.ClusterClientConfigs;
import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.CrossFieldValidation;
import io.jetstream.kafka.connect.common.config.IntegrityConfigs;
import io.jetstream.kafka.connect.common.config.NonEmptyListValidator;
import io.jetstream.kafka.connect.common.config.RegexValidator;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.schema.RegistryClientSettings;
import io.jetstream.kafka.schema.SchemaRegistryConfigs;
import io.jetstream.kafka.schema.SubjectNameStrategy;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Configuration of the destination-site connector (a Connect source connector: it receives batches
 * from its site's egress relays and writes them into topics). The raw map stops here.
 */
public class SinkSiteConfig extends AbstractConfig {

    public static final String SOURCE_ALIAS = "source.cluster.alias";
    public static final String TARGET_ALIAS = "target.cluster.alias";
    public static final String TARGET_BOOTSTRAP = "target.cluster.bootstrap.servers";
    public static final String TOPIC_NAMING = "topic.naming.policy";
    public static final String TOPIC_SEPARATOR = "topic.naming.separator";
    public static final String TOPICS_ALLOW = "topics.allow";
    /** Every topic: {@link #TOPICS_EXCLUDE} keeps the internal ones out. */
    static final String DEFAULT_TOPICS_ALLOW = ".*";
    public static final String TOPICS_EXCLUDE = "topics.exclude";
    /** Internal topics, as MirrorMaker 2's DefaultTopicFilter excludes them (and any '-internal'). */
    static final String DEFAULT_TOPICS_EXCLUDE = "__.*,.*[.-]internal,.*\\.replica";
    public static final String TOPIC_CREATE = "create.topics.enabled";
    public static final String TOPIC_REPLICATION_FACTOR = "create.topics.replication.factor";
    public static final String TOPIC_CONFIGS_SYNC = "sync.topic.configs.enabled";
    public static final String TOPIC_CONFIGS_EXCLUDE = "sync.topic.configs.exclude";
    public static final String TOPIC_PARTITIONS_MAX = "create.topics.partitions.max";
    public static final String TOPIC_CREATE_UNSIGNED_MAX = "create.topics.unsigned.max";
    public static final String TOPIC_CREATE_UNSIGNED_INTERVAL_MS = "create.topics.unsigned.interval.ms";
    public static final String TOPIC_METADATA_MAX_AGE_MS = "topic.metadata.max.age.ms";
    /** Default of {@link #TOPIC_CREATE_UNSIGNED_MAX}. */
    public static final int DEFAULT_TOPIC_CREATE_UNSIGNED_MAX = 100;
    /** Default of {@link #TOPIC_CREATE_UNSIGNED_INTERVAL_MS}. */
    public static final Duration DEFAULT_TOPIC_CREATE_UNSIGNED_INTERVAL = Duration.ofHours(1);
    /** Default of {@link #TOPIC_METADATA_MAX_AGE_MS}: ten refreshes at the source's default interval. */
    public static final Duration DEFAULT_TOPIC_METADATA_MAX_AGE = Duration.ofMinutes(5);
    /** The configs MirrorMaker 2's DefaultConfigPropertyFilter never syncs: they describe a cluster, not the data. */
    static final String DEFAULT_TOPIC_CONFIGS_EXCLUDE = "follower\\.replication\\.throttled\\.replicas"
            + "|leader\\.replication\\.throttled\\.replicas|message\\.timestamp\\.difference\\.max\\.ms"
            + "|message\\.timestamp\\.type|unclean\\.leader\\.election\\.enable|min\\.insync\\.replicas";
    public static final String BUFFER_MAX_BYTES = "buffer.max.bytes";
    public static final String POLL_MAX_RECORDS = "poll.max.records";
    public static final String POLL_TIMEOUT_MS = "poll.timeout.ms";
    public static final String OFFSET_GAP_POLICY = "offset.gap.policy";
    public static final String TOPIC_RECREATION_POLICY = "topic.recreation.policy";
    public static final String CLUSTER_CALL_TIMEOUT_MS = "cluster.call.timeout.ms";
    public static final String STABLE_TIMEOUT_MS = "exactly.once.stable.timeout.ms";
    public static final String TRANSACTION_GAP_MS = "exactly.once.transaction.gap.ms";

    private static final String CLUSTERS = "Clusters";
    private static final String TARGET_SECURITY = "Target cluster security";
    private static final String TOPICS = "Topics";
    private static final String DELIVERY = "Delivery";

    public static final ConfigDef CONFIG_DEF = configDef();

    private final Pattern topicsAllow;

    public SinkSiteConfig(Map<String, String> props) {
        this(CONFIG_DEF, props);
    }

    /** For the task configuration, whose definition extends this one. */
    protected SinkSiteConfig(ConfigDef definition, Map<String, String> props) {
        super(definition, MirrorMakerAliases.resolve(definition, props));
        this.topicsAllow = topicFilter(getString(TOPICS_ALLOW), getList(TOPICS_EXCLUDE));
        crossCheck();
    }

    static ConfigDef configDef() {
        ConfigDef def = new ConfigDef()
                .define(SOURCE_ALIAS, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ClusterAliasValidator(),
                        Importance.HIGH, "Alias of the source cluster whose stream this connector writes; "
                                + "batches from any other origin are refused.",
                        CLUSTERS, 1, Width.SHORT, "Source cluster alias")
                .define(TARGET_ALIAS, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ClusterAliasValidator(),
                        Importance.HIGH, "Alias of this (the destination) cluster. Batches of topics that "
                                + "came from this cluster are never written back (active-active safety).",
                        CLUSTERS, 2, Width.SHORT, "Target cluster alias")
                .define(TARGET_BOOTSTRAP, Type.LIST, ConfigDef.NO_DEFAULT_VALUE,
                        new NonEmptyListValidator("this cluster's brokers (host:port)"), Importance.HIGH,
                        "Bootstrap servers of this (the destination) cluster for the connector's own Kafka "
                                + "clients, which create topics with the origin's partition count and configs, grow "
                                + "them, sync their configs and read records back after a crash. They take the "
                                + "target.cluster.security.protocol, ssl.* and sasl.* keys below; the producer that "
                                + "writes the records is the worker's.",
                        CLUSTERS, 3, Width.LONG, "Target bootstrap servers")
                .define(TOPIC_NAMING, Type.STRING, "prefix", new TopicNamingValidator(), Importance.HIGH,
                        "How destination topics are named: 'prefix' (MirrorMaker 2 compatible "
                                + "<source alias><separator><topic>), 'identity' (same name), or the class name "
                                + "of a " + TopicNamingPolicy.class.getName() + " implementation (or of "
                                + "io.jetstream.kafka.sink.TopicNamingPolicy, its former name) or of a "
                                + "MirrorMaker 2 ReplicationPolicy (see replication.policy.class).",
                        TOPICS, 1, Width.MEDIUM, "Topic naming policy")
                .define(TOPIC_SEPARATOR, Type.STRING, ".", new ConfigDef.NonEmptyString(), Importance.LOW,
                        "Separator between alias and topic name for the 'prefix' policy.",
                        TOPICS, 2, Width.SHORT, "Topic name separator")
                .define(TOPICS_ALLOW, Type.STRING, DEFAULT_TOPICS_ALLOW, new RegexValidator(), Importance.HIGH,
                        "Regular expression over origin topic names: only matching topics that match none of "
                                + TOPICS_EXCLUDE + " are written. Batches and metadata of other topics are refused "
                                + "and counted; nothing is written outside it. MirrorMaker 2's spelling, topics (a "
                                + "list of regular expressions), is accepted too.",
                        TOPICS, 3, Width.LONG, "Allowed topics")
                .define(TOPICS_EXCLUDE, Type.LIST, DEFAULT_TOPICS_EXCLUDE, new CheckpointConfigs.RegexListValidator(),
                        Importance.MEDIUM, "Regular expressions over origin topic names (MirrorMaker 2's key): "
                                + "topics matching any are never written, even when " + TOPICS_ALLOW + " matches "
                                + "them. The default keeps internal topics out, as MirrorMaker 2's topic filter: "
                                + "names starting with '__' (e.g. __consumer_offsets, __transaction_state) or "
                                + "ending in '.internal', '-internal' or '.replica'. Empty: nothing excluded.",
                        TOPICS, 4, Width.LONG, "Excluded topics")
                .define(TOPIC_CREATE, Type.BOOLEAN, true, Importance.MEDIUM,
                        "Create missing destination topics with the origin's partition count and configs, and "
                                + "add partitions when the origin grows. When false, missing topics fail the task.",
                        TOPICS, 5, Width.SHORT, "Create topics")
                .define(TOPIC_REPLICATION_FACTOR, Type.SHORT, (short) -1, new ReplicationFactorValidator(),
                        Importance.MEDIUM, "Replication factor of created topics; -1 uses the broker default.",
                        TOPICS, 6, Width.SHORT, "Replication factor")
                .define(TOPIC_CONFIGS_SYNC, Type.BOOLEAN, true, Importance.LOW,
                        "Apply the origin topic's configs (retention, cleanup policy, ...) when creating topics.",
                        TOPICS, 7, Width.SHORT, "Sync topic configs")
                .define(TOPIC_CONFIGS_EXCLUDE, Type.STRING, DEFAULT_TOPIC_CONFIGS_EXCLUDE, new RegexValidator(),
                        Importance.LOW, "Regular expression over topic config names: origin configs that match "
                                + "are never applied to destination topics, whatever the source sends. The "
                                + "default excludes what MirrorMaker 2 excludes (replication throttles, "
                                + "timestamp type and difference, unclean leader election, min.insync.replicas: "
                                + "they describe a cluster, not the data); add for example 'retention\\.ms' to "
                                + "keep the destination's own retention. Without integrity.key the metadata "
                                + "crosses the relays unsigned, so this also bounds what a relay could set.",
                        TOPICS, 8, Width.LONG, "Topic configs never synced")
                .define(TOPIC_PARTITIONS_MAX, Type.INT, 4096, ConfigDef.Range.between(1, 1_000_000),
                        Importance.LOW, "Most partitions this connector gives a destination topic, when it "
                                + "creates or grows one from the origin's partition count or from a batch's "
                                + "partition. A batch or topic metadata beyond it is refused for good (the "
                                + "source task fails, naming topic, partition and this key) and nothing is "
                                + "created: a path that could alter unsigned metadata (without integrity.key) "
                                + "cannot make the destination cluster create thousands of partitions. Raise it "
                                + "for origin topics with more partitions.",
                        TOPICS, 9, Width.SHORT, "Most partitions per topic")
                .define(TOPIC_CREATE_UNSIGNED_MAX, Type.INT, DEFAULT_TOPIC_CREATE_UNSIGNED_MAX,
                        ConfigDef.Range.between(0, 1_000_000), Importance.MEDIUM, "Without integrity.key only: "
                                + "most destination topics each task creates from topic metadata in any "
                                + TOPIC_CREATE_UNSIGNED_INTERVAL_MS + ". Unsigned metadata can come from any relay "
                                + "on the path or any holder of the stream's token; this bounds how many topics "
                                + "(each up to " + TOPIC_PARTITIONS_MAX + " partitions) it can make. Metadata past "
                                + "the cap is refused (NACK NOT_AUTHORIZED naming this key, ERROR log, "
                                + "topic-creations-refused-total) and the source retries it. 0 creates no topic "
                                + "from unsigned metadata. With integrity.key there is no cap.",
                        TOPICS, 10, Width.SHORT, "Most topics created per interval without a key")
                .define(TOPIC_CREATE_UNSIGNED_INTERVAL_MS, Type.LONG, DEFAULT_TOPIC_CREATE_UNSIGNED_INTERVAL.toMillis(),
                        ConfigDef.Range.between(1_000, 7L * 24 * 3_600_000), Importance.LOW,
                        "The sliding window over which " + TOPIC_CREATE_UNSIGNED_MAX + " counts creations.",
                        TOPICS, 11, Width.SHORT, "Creation cap window")
                .define(TOPIC_METADATA_MAX_AGE_MS, Type.LONG, DEFAULT_TOPIC_METADATA_MAX_AGE.toMillis(),
                        ConfigDef.Range.between(10_000, 24L * 3_600_000), Importance.LOW,
                        "Topic metadata describes the origin topic at a time of the source site's clock (its "
                                + "generation). A description older than this by this worker's clock is not "
                                + "applied, nor is one older than a description of the topic applied already: a "
                                + "relay re-sending old metadata cannot roll retention.ms or cleanup.policy back, "
                                + "even right after a task restart. Keep it well above the source's "
                                + "topic.metadata.refresh.interval.ms plus the clock skew between the sites.",
                        TOPICS, 12, Width.SHORT, "Maximum age of topic metadata")
                .define(BUFFER_MAX_BYTES, Type.LONG, 64L * 1024 * 1024,
                        ConfigDef.Range.between(1024 * 1024, 8L * 1024 * 1024 * 1024), Importance.MEDIUM,
                        "Per task, bounds two areas separately: bytes of received batches waiting to be "
                                + "written, and bytes of batches held because they arrived before their "
                                + "predecessor. Once the first area is half full the task stops reading from "
                                + "the relay until it has drained to a quarter (TCP backpressure, nothing is "
                                + "sent twice); a full area refuses batches with a retriable OVERLOADED "
                                + "acknowledgement; a batch that can be written at once is never refused for the "
                                + "hold area. Received batches count their wire (compressed) bytes; held batches, "
                                + "which are decoded, their records' key, value and header bytes plus 64 per "
                                + "record.",
                        DELIVERY, 1, Width.SHORT, "Buffer max bytes")
                .define(POLL_MAX_RECORDS, Type.INT, 10_000, ConfigDef.Range.between(1, 1_000_000),
                        Importance.LOW, "Most records handed to Connect by one poll().",
                        DELIVERY, 2, Width.SHORT, "Poll max records")
                .define(POLL_TIMEOUT_MS, Type.LONG, 200L, ConfigDef.Range.between(1, 10_000), Importance.LOW,
                        "Longest time poll() waits for a batch before returning nothing.",
                        DELIVERY, 3, Width.SHORT, "Poll timeout (ms)")
                .define(OFFSET_GAP_POLICY, Type.STRING, "fail", ConfigDef.ValidString.in("fail", "accept"),
                        Importance.HIGH, "What to do when origin offsets were never written here and the source "
                                + "cannot vouch that they held no records: they were deleted at the source before "
                                + "they were replicated (retention, deleteRecords) or the source connector's "
                                + "consumer offsets were reset past them. Gaps the source can explain (transaction "
                                + "markers, aborted transactions, compaction) are never gaps here. Every gap is "
                                + "logged with its offset range and counted in offset-gaps-total (tagged topic and "
                                + "partition). 'fail': the task fails with a message naming topic, partition and "
                                + "range, and fails again after each restart until the gap is accepted. 'accept': "
                                + "replication continues after the gap.",
                        DELIVERY, 4, Width.SHORT, "Offset gap policy")
                .define(TOPIC_RECREATION_POLICY, Type.STRING, "continue", ConfigDef.ValidString.in("continue", "fail"),
                        Importance.MEDIUM, "What to do when a source topic was deleted and recreated under the same "
                                + "name (its topic id changed) and records of the new topic arrive. Each incarnation "
                                + "is replicated from its first record, whatever its offsets; the question is what "
                                + "happens to the old incarnation's records already here. 'continue': they stay, and "
                                + "the new incarnation's records follow them in the same destination partitions (its "
                                + "offsets there keep growing). 'fail': the task fails with a message naming the "
                                + "topic, partition and both ids, and fails again after each restart, so an operator "
                                + "can empty or recreate the destination topic first, then set 'continue'. Every "
                                + "recreation is logged and counted in topic-recreations-total (tagged topic and "
                                + "partition).",
                        DELIVERY, 5, Width.SHORT, "Topic recreation policy")
                .define(CLUSTER_CALL_TIMEOUT_MS, Type.LONG, 10_000L, ConfigDef.Range.between(100, 300_000),
                        Importance.LOW, "Longest a task waits for one call to the destination cluster's Admin API "
                                + "(creating, growing and configuring destination topics, reading end offsets) and "
                                + "for the read of a partition's last records after a crash (at-least-once), calls "
                                + "the task's poll thread makes. A call that takes longer fails: the topic's metadata "
                                + "is refused and sent again by the source, its batches wait, a failed read only "
                                + "stops the counting of rewritten records; nothing is lost. Bounds how long a "
                                + "destination broker outage can hold poll().",
                        DELIVERY, 6, Width.SHORT, "Cluster call timeout (ms)")
                .define(STABLE_TIMEOUT_MS, Type.LONG, 30_000L, ConfigDef.Range.between(1_000, 3_600_000),
                        Importance.LOW, "Exactly-once only. A batch is acknowledged to the source once its records "
                                + "are readable by read_committed consumers: once the destination partition's last "
                                + "stable offset has passed them, which follows the transaction's commit within "
                                + "milliseconds. Records still not readable this long after Connect reported their "
                                + "transaction committed, with the stable offset readable all that time (a broker "
                                + "back from an outage gets the whole timeout from its return), are held back by a "
                                + "hanging transaction (after a destination broker crash): unless the transactions "
                                + "open on the partition since before them are all still in PrepareCommit or "
                                + "PrepareAbort at their coordinator, or changed while this was asked (a slow broker "
                                + "still writing its markers, which restarts the wait), the task then fails with "
                                + "a message naming the partition and what to do, and the source keeps the records "
                                + "for the next task instance. The connector aborts its tasks' hanging transactions "
                                + "only after they were seen hanging this long plus 10 s ("
                                + HangingTransactionConfigs.CHECK_INTERVAL_MS + "), then has the tasks restarted.",
                        DELIVERY, 7, Width.SHORT, "Stable records timeout (ms)")
                .define(TRANSACTION_GAP_MS, Type.LONG, 10L, ConfigDef.Range.between(0, 1_000),
                        Importance.LOW, "Exactly-once only. Least time from a transaction's commit to the task "
                                + "handing Connect the records of the next one (records that arrive meanwhile join "
                                + "it). The broker writes the commit markers after answering the commit; a write of "
                                + "the next transaction to the same partitions (every transaction writes its "
                                + "progress to the same offsets partition) before they are written is answered "
                                + "CONCURRENT_TRANSACTIONS once the broker's own retries "
                                + "(add.partitions.to.txn.retry.backoff.ms) gave up, and the producer tries again after "
                                + "retry.backoff.ms, doubling up to retry.backoff.max.ms (100 ms and 1 s by default; "
                                + "config/sink-connector.json sets 10 and 100 ms through producer.override.*: the "
                                + "doubling made stalls of 1-2 s of markers that were a few hundred ms late, at 1,200 "
                                + "partitions). Every transaction "
                                + "costs the destination broker markers on each partition it wrote. The gap makes "
                                + "fewer, larger transactions at a low rate; under load a poll takes longer than it "
                                + "anyway. 0: no wait (a transaction per poll, as soon as records are there).",
                        DELIVERY, 8, Width.SHORT, "Gap between transactions (ms)");
        ClusterClientConfigs.define(def, ClusterClientConfigs.TARGET_PREFIX, TARGET_SECURITY,
                "the destination cluster");
        RelayClientConfigs.define(def,
                "Egress relays of this site the tasks subscribe to (host:port of their data listeners); "
                        + "each task subscribes to every one of them.");
        HangingTransactionConfigs.define(def);
        OffsetMapConfigs.define(def);
        CheckpointConfigs.define(def);
        IntegrityConfigs.defineKey(def, "Here: the MAC of every batch and topic metadata is checked before "
                + "anything in it is used (see " + IntegrityConfigs.REQUIRED + "), and every acknowledgement this "
                + "connector sends is signed.");
        IntegrityConfigs.defineRequired(def);
        MirrorMakerAliases.define(def);
        SchemaRegistryConfigs.define(def, "Here: the schemas the source ships are registered in this site's registry "
                + "under the subject the strategies below give for the destination topic (the subject's "
                + "compatibility rule applies) and each record's id is rewritten to this registry's. A record whose "
                + "id cannot be translated is never written: its batch is refused retriably (the source sends it "
                + "again with backoff) while the schema has not arrived or the registry cannot be reached, and its "
                + "partition stops with an error naming subject and schema while the registry refuses the schema "
                + "as incompatible.", "The destination site's registry: the one consumers here read ids from.");
        return SchemaRegistryConfigs.defineStrategies(def);
    }

    private void crossCheck() {
        Map<String, String> props = originalsStrings();
        CrossFieldValidation.throwFirst(CONFIG_DEF, props, crossFieldErrors(props));
    }

    /** Errors that involve several keys, each keyed by the key it concerns. */
    public static Map<String, String> crossFieldErrors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>(
                CrossFieldValidation.commonErrors(props, SOURCE_ALIAS, TARGET_ALIAS));
        ClusterClientConfigs.errors(props, ClusterClientConfigs.TARGET_PREFIX).forEach(errors::putIfAbsent);
        IntegrityConfigs.errors(props).forEach(errors::putIfAbsent);
        OffsetMapConfigs.errors(props).forEach(errors::putIfAbsent);
        CheckpointConfigs.errors(props).forEach(errors::putIfAbsent);
        SchemaRegistryConfigs.errors(props).forEach(errors::putIfAbsent);
        MirrorMakerAliases.errors(CONFIG_DEF, props).forEach(errors::putIfAbsent);
        return errors;
    }

    public String sourceAlias() {
        return getString(SOURCE_ALIAS);
    }

    public String targetAlias() {
        return getString(TARGET_ALIAS);
    }

    /**
     * How the connector's own clients (the Admin client, read-back consumers) reach this cluster:
     * bootstrap servers and security.
     */
    public ClusterClients targetCluster() {
        return ClusterClientConfigs.clients(this, ClusterClientConfigs.TARGET_PREFIX, "destination cluster");
    }

    /** The naming policy, instantiated and configured. */
    public TopicNamingPolicy topicNamingPolicy() {
        return TopicNamingPolicy.create(getString(TOPIC_NAMING), sourceAlias(), getString(TOPIC_SEPARATOR),
                originalsStrings());
    }

    /** The origin topics written: matching {@value #TOPICS_ALLOW} and none of {@value #TOPICS_EXCLUDE}. */
    public Pattern topicsAllow() {
        return topicsAllow;
    }

    public boolean topicCreation() {
        return getBoolean(TOPIC_CREATE);
    }

    public short topicReplicationFactor() {
        return getShort(TOPIC_REPLICATION_FACTOR);
    }

    /** Most partitions given to a destination topic ({@value #TOPIC_PARTITIONS_MAX}). */
    public int topicPartitionsMax() {
        return getInt(TOPIC_PARTITIONS_MAX);
    }

    /** Most topics created per interval from unsigned metadata ({@value #TOPIC_CREATE_UNSIGNED_MAX}). */
    public int topicCreateUnsignedMax() {
        return getInt(TOPIC_CREATE_UNSIGNED_MAX);
    }

    public Duration topicCreateUnsignedInterval() {
        return Duration.ofMillis(getLong(TOPIC_CREATE_UNSIGNED_INTERVAL_MS));
    }

    /** Oldest topic metadata applied ({@value #TOPIC_METADATA_MAX_AGE_MS}). */
    public Duration topicMetadataMaxAge() {
        return Duration.ofMillis(getLong(TOPIC_METADATA_MAX_AGE_MS));
    }

    public boolean topicConfigsSync() {
        return getBoolean(TOPIC_CONFIGS_SYNC);
    }

    /** Topic configs of the origin never applied at the destination ({@value #TOPIC_CONFIGS_EXCLUDE}). */
    public Pattern topicConfigsExclude() {
        return Pattern.compile(getString(TOPIC_CONFIGS_EXCLUDE));
    }

    public long bufferMaxBytes() {
        return getLong(BUFFER_MAX_BYTES);
    }

    public int pollMaxRecords() {
        return getInt(POLL_MAX_RECORDS);
    }

    public Duration clusterCallTimeout() {
        return Duration.ofMillis(getLong(CLUSTER_CALL_TIMEOUT_MS));
    }

    public Duration stableTimeout() {
        return Duration.ofMillis(getLong(STABLE_TIMEOUT_MS));
    }

    /** Exactly-once: least time from a commit to the next transaction's records ({@value #TRANSACTION_GAP_MS}). */
    public Duration transactionGap() {
        return Duration.ofMillis(getLong(TRANSACTION_GAP_MS));
    }

    public Duration pollTimeout() {
        return Duration.ofMillis(getLong(POLL_TIMEOUT_MS));
    }

    /** Whether a gap the source cannot vouch for fails the task ({@code fail}) or is passed ({@code accept}). */
    public boolean acceptOffsetGaps() {
        return "accept".equals(getString(OFFSET_GAP_POLICY));
    }

    /** Whether records of a recreated source topic follow the old incarnation's ({@code continue}) or fail the task. */
    public boolean failOnTopicRecreation() {
        return "fail".equals(getString(TOPIC_RECREATION_POLICY));
    }

    /** The end-to-end integrity key ({@value IntegrityConfigs#KEY}), if set. */
    public Optional<byte[]> integrityKey() {
        return IntegrityConfigs.key(this);
    }

    /** Whether batches and metadata without a valid MAC are refused ({@value IntegrityConfigs#REQUIRED}). */
    public boolean integrityRequired() {
        return IntegrityConfigs.required(this);
    }

    /** Whether schema ids are translated to this site's registry ({@value SchemaRegistryConfigs#ENABLED}). */
    public boolean schemaTranslation() {
        return SchemaRegistryConfigs.enabled(this);
    }

    /** How to reach this site's schema registry. */
    public RegistryClientSettings schemaRegistry() {
        return SchemaRegistryConfigs.settings(this);
    }

    public SubjectNameStrategy keySubjectStrategy() {
        return SchemaRegistryConfigs.keyStrategy(this);
    }

    public SubjectNameStrategy valueSubjectStrategy() {
        return SchemaRegistryConfigs.valueStrategy(this);
    }

    /** How long schema translation may hold a partition before the task fails; empty: never. */
    public Optional<Duration> schemaHoldTimeout() {
        return SchemaRegistryConfigs.holdTimeout(this);
    }

    public int schemaCacheSize() {
        return SchemaRegistryConfigs.cacheSize(this);
    }

    public RelayClientConfigs.Settings relays(String connectorName) {
        return RelayClientConfigs.settings(this, connectorName);
    }

    /** Names matching {@code allow} and none of {@code exclude}, as one pattern (for {@link Pattern#matcher}'s matches()). */
    static Pattern topicFilter(String allow, List<String> exclude) {
        if (exclude.isEmpty()) {
            return Pattern.compile(allow);
        }
        return Pattern.compile("(?!(?:" + String.join("|", exclude) + ")\\z)(?:" + allow + ")");
    }

    /** -1 (broker default) or 1..32767. */
    static final class ReplicationFactorValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            short factor = (Short) value;
            if (factor == 0 || factor < -1) {
                throw new ConfigException(name, value, "must be -1 (broker default) or at least 1");
            }
        }

        @Override
        public String toString() {
            return "-1 or >= 1";
        }
    }

    /** 'prefix', 'identity' or a loadable class implementing {@link TopicNamingPolicy}. */
    static final class TopicNamingValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                TopicNamingPolicy.create((String) value, "alias", ".");
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "prefix, identity or a class name";
        }
    }
}
