package io.jetstream.kafka.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The MirrorMaker 2 configurations the benchmark deploys: the body of
 * {@code PUT /connectors/<name>/config} for {@code MirrorSourceConnector}, and the properties of
 * the Connect workers that run it. Pure functions, so the tuning is stated in one place, tested,
 * and written into the JSON result as deployed.
 *
 * <p><b>Defaults</b> are what an operator gets from the connector's documentation: aliases,
 * bootstrap servers, the topic, ByteArray converters (no re-serialisation), replication factor 1
 * (single-broker sites) and no ACL sync (the brokers have no authorizer); everything else,
 * including {@code tasks.max=1}, as shipped.
 *
 * <p><b>Tuned</b> adds what a careful operator sets for a long fat pipe:
 * <ul>
 *   <li>{@code tasks.max} 6, one per partition (with three workers two each: with three, one each,
 *       every task's producer was round-trip-bound at ~2 MB/s of wire and the uplinks 40% full);</li>
 *   <li>source consumer: {@code receive.buffer.bytes=-1} (the kernel's autotuning instead of a fixed
 *       64 KiB, which caps a fetch connection at 64 KiB per round trip), {@code fetch.max.bytes} 32 MiB,
 *       {@code max.partition.fetch.bytes} 4 MiB, {@code max.poll.records} 2000;</li>
 *   <li>producer (the worker's producer writes the records: overridden per connector):
 *       {@code batch.size} 1 MiB, {@code linger.ms} 20, {@code compression.type} zstd,
 *       {@code max.request.size} 8 MiB, {@code buffer.memory} 64 MiB, {@code send.buffer.bytes=-1};
 *       above {@value #MANY_PARTITIONS} partitions ({@code --partitions}), as an operator retunes for
 *       many partitions: {@code batch.size} 128 KiB and {@code buffer.memory} 256 MiB (1 MiB batches
 *       over 1,200 partitions exhausted the buffer: 0.38 MB/s, p50 4.1 s in issue 30's runs);</li>
 *   <li>no side traffic: {@code emit.offset-syncs.enabled=false}, {@code sync.topic.configs.enabled=false}.</li>
 * </ul>
 * Connect's own producer settings stay (acks=all, one request in flight per connection), as in any
 * Connect deployment of MM2.
 */
public final class Mm2Configs {

    public static final String CONNECTOR_CLASS = "org.apache.kafka.connect.mirror.MirrorSourceConnector";
    private static final String BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";

    private Mm2Configs() {
    }

    /**
     * The connector config of {@code setup} replicating {@code topic} from cluster {@code A} (at
     * {@code sourceBootstrap}) to {@code B} (at {@code targetBootstrap}).
     */
    public static Map<String, String> connector(Variant.Mm2Setup setup, String topic, String sourceBootstrap,
                                                String targetBootstrap) {
        return connector(setup, topic, sourceBootstrap, targetBootstrap, BenchPlan.PARTITIONS);
    }

    /** The same for a topic of {@code partitions} partitions: the tuning follows the count ({@link #tuning(int)}). */
    public static Map<String, String> connector(Variant.Mm2Setup setup, String topic, String sourceBootstrap,
                                                String targetBootstrap, int partitions) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", CONNECTOR_CLASS);
        config.put("source.cluster.alias", "A");
        config.put("target.cluster.alias", "B");
        config.put("source.cluster.bootstrap.servers", sourceBootstrap);
        config.put("target.cluster.bootstrap.servers", targetBootstrap);
        config.put("topics", topic);
        config.put("key.converter", BYTE_ARRAY);
        config.put("value.converter", BYTE_ARRAY);
        config.put("header.converter", BYTE_ARRAY);
        config.put("replication.factor", "1");
        config.put("sync.topic.acls.enabled", "false");
        config.put("tasks.max", Integer.toString(setup.tasks()));
        if (setup.exactlyOnce()) {
            config.put("exactly.once.support", "required");
            // MM2 refuses exactly-once unless it skips aborted and open transactions at the source
            config.put("source.consumer.isolation.level", "read_committed");
        }
        if (setup.tuned()) {
            config.putAll(tuning(partitions));
        } else {
            // the offset-syncs topic is only created when offset syncs are emitted; MM2 refuses
            // offset-syncs settings when they are not (the tuned variants turn them off)
            config.put("offset-syncs.topic.replication.factor", "1");
        }
        return config;
    }

    /** Above this many partitions the tuned variants use smaller producer batches and a larger buffer. */
    public static final int MANY_PARTITIONS = 32;

    /** The keys the tuned variants add to the defaults (tasks.max aside), for the default partition count. */
    public static Map<String, String> tuning() {
        return tuning(BenchPlan.PARTITIONS);
    }

    /** The keys the tuned variants add to the defaults for a topic of {@code partitions} partitions. */
    public static Map<String, String> tuning(int partitions) {
        boolean many = partitions > MANY_PARTITIONS;
        Map<String, String> tuning = new LinkedHashMap<>();
        tuning.put("source.consumer.receive.buffer.bytes", "-1");
        tuning.put("source.consumer.fetch.max.bytes", Integer.toString(32 << 20));
        tuning.put("source.consumer.max.partition.fetch.bytes", Integer.toString(4 << 20));
        tuning.put("source.consumer.max.poll.records", "2000");
        tuning.put("producer.override.batch.size", Integer.toString(many ? 128 << 10 : 1 << 20));
        tuning.put("producer.override.linger.ms", "20");
        tuning.put("producer.override.compression.type", "zstd");
        tuning.put("producer.override.max.request.size", Integer.toString(8 << 20));
        tuning.put("producer.override.buffer.memory", Integer.toString(many ? 256 << 20 : 64 << 20));
        tuning.put("producer.override.send.buffer.bytes", "-1");
        tuning.put("emit.offset-syncs.enabled", "false");
        tuning.put("sync.topic.configs.enabled", "false");
        return tuning;
    }

    /**
     * Overrides of {@code config/connect-worker.properties} for an MM2 worker of {@code setup}'s
     * group: the workers of a group share their group id and internal topics; exactly-once source
     * support is off, as in MirrorMaker 2's own default (the shipped file turns it on for JetStream),
     * unless the setup asks for exactly-once.
     */
    public static Map<String, String> worker(Variant.Mm2Setup setup) {
        String group = setup.group();
        Map<String, String> worker = new LinkedHashMap<>();
        worker.put("group.id", group);
        worker.put("config.storage.topic", "_" + group + "-configs");
        worker.put("offset.storage.topic", "_" + group + "-offsets");
        worker.put("status.storage.topic", "_" + group + "-status");
        worker.put("exactly.once.source.support", setup.exactlyOnce() ? "enabled" : "disabled");
        return worker;
    }

    /** Where MM2 writes {@code topic} at the destination: DefaultReplicationPolicy, {@code A.<topic>}. */
    public static String destinationTopic(String topic) {
        return "A." + topic;
    }
}
