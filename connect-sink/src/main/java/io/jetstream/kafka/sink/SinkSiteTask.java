package io.jetstream.kafka.sink;

import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.config.RelayClientConfigs;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.transport.ClientTls;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A destination-site task: a Connect {@link SourceTask} that subscribes to the egress relays for
 * its share of origin partitions and returns the records a {@link ReplicationReceiver} puts in
 * order, each with its origin key, value, headers, timestamp and partition number.
 *
 * <p>Progress: each record's source partition is {@code {cluster, topic, partition}} of its origin
 * and its source offset {@code {offset}} the origin offset, so the last written origin offset per
 * partition is Connect's stored source offset (in the same transaction as the records with
 * exactly-once). Acknowledgements go upstream only when records are durable.
 *
 * <p>Threads: Connect's task thread calls poll; producer threads call commitRecord; a Netty
 * event-loop thread per task runs the relay connections.
 */
public final class SinkSiteTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(SinkSiteTask.class);
    static final String CLUSTER = "cluster";
    static final String TOPIC = "topic";
    static final String PARTITION = "partition";
    static final String OFFSET = "offset";

    private SinkSiteConfig config;
    private String sourceAlias;
    private TopicNamingPolicy naming;
    private EventLoopGroup group;
    private final List<PeerClient> clients = new ArrayList<>();
    private ReplicationReceiver receiver;
    private DestinationTopics topics;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new SinkSiteConfig(props);
        sourceAlias = config.sourceAlias();
        naming = config.topicNamingPolicy();
        String connectorName = props.getOrDefault("name", "jetstream-sink");
        int taskId = Integer.parseInt(props.getOrDefault(SinkSiteConnector.TASK_ID, "0"));
        int taskCount = Integer.parseInt(props.getOrDefault(SinkSiteConnector.TASK_COUNT, "1"));
        boolean exactlyOnce = "required".equalsIgnoreCase(props.get(SinkSiteConnector.EXACTLY_ONCE_SUPPORT));
        RelayClientConfigs.Settings relaySettings = config.relays(connectorName);
        String nodeId = connectorName + "-" + taskId + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        SinkSiteMetrics metrics = new SinkSiteMetrics(context.pluginMetrics());
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                String.join(",", config.targetBootstrapServers()),
                AdminClientConfig.CLIENT_ID_CONFIG, nodeId + "-topics"));
        topics = new DestinationTopics(admin, naming, config.topicCreation(), config.topicReplicationFactor(),
                config.topicConfigsSync());
        receiver = new ReplicationReceiver(new ReplicationReceiver.Settings(relaySettings.streamId(),
                config.topicsAllow(), naming, config.targetAlias(), config.bufferMaxBytes(), config.pollMaxRecords(),
                exactlyOnce ? ReplicationReceiver.Durability.ON_RECORD_COMMIT
                        : ReplicationReceiver.Durability.ON_OFFSET_FLUSH),
                this::lastWritten, topics, metrics);
        metrics.gauge("buffered-bytes", "Bytes of batches queued or held for re-ordering.", receiver::bufferedBytes);
        SslContext ssl = relaySettings.tls()
                ? ClientTls.sslContext(relaySettings.caFile(), relaySettings.certFile(), relaySettings.keyFile())
                : null;
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("jetstream-sink-" + nodeId, true),
                NioIoHandler.newFactory());
        SubscribeFrame subscription = new SubscribeFrame(relaySettings.streamId(), nodeId, taskId, taskCount);
        for (var address : relaySettings.relays()) {
            PeerClientConfig clientConfig = PeerClientConfig.builder(address, PeerRole.SUBSCRIBER, nodeId,
                            relaySettings.streamId(), relaySettings.token().value())
                    .sslContext(ssl)
                    .connectTimeout(relaySettings.connectTimeout())
                    .heartbeatInterval(relaySettings.heartbeatInterval())
                    .reconnectBackoff(relaySettings.reconnectBackoff(), relaySettings.reconnectBackoffMax())
                    .subscription(subscription)
                    .build();
            UpstreamAdapter upstream = new UpstreamAdapter();
            PeerClient client = new PeerClient(clientConfig, group, new PeerClient.Listener() {
                @Override
                public void onFrame(PeerClient c, Frame frame) {
                    receiver.onFrame(upstream, frame);
                }
            });
            upstream.client = client;
            clients.add(client);
        }
        clients.forEach(PeerClient::start);
        log.info("Destination-site task {} started: share {}/{} of stream {} from {}, {} mode", nodeId, taskId,
                taskCount, relaySettings.streamId(), relaySettings.relays(),
                exactlyOnce ? "exactly-once" : "at-least-once");
    }

    private long lastWritten(String originTopic, int partition) {
        Map<String, Object> offset = context.offsetStorageReader().offset(sourcePartition(originTopic, partition));
        if (offset == null || !(offset.get(OFFSET) instanceof Number number)) {
            return -1L;
        }
        return number.longValue();
    }

    /**
     * The Connect source partition of an origin partition. A sorted map: Connect finds stored
     * offsets by the serialized key, so the key order must be the same in every JVM (Map.of's
     * iteration order is not).
     */
    private Map<String, Object> sourcePartition(String originTopic, int partition) {
        Map<String, Object> key = new TreeMap<>();
        key.put(CLUSTER, sourceAlias);
        key.put(TOPIC, originTopic);
        key.put(PARTITION, partition);
        return key;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        List<ReplicationReceiver.Delivery> deliveries = receiver.poll(config.pollTimeout());
        if (deliveries.isEmpty()) {
            return null;
        }
        List<SourceRecord> records = new ArrayList<>(deliveries.size());
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            records.add(toSourceRecord(delivery));
        }
        return records;
    }

    private SourceRecord toSourceRecord(ReplicationReceiver.Delivery delivery) {
        ReplicatedRecord record = delivery.record();
        ConnectHeaders headers = new ConnectHeaders();
        for (RecordHeader header : record.headers()) {
            headers.addBytes(header.key(), header.value());
        }
        Long timestamp = record.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? null : record.timestamp();
        return new SourceRecord(sourcePartition(delivery.originTopic(), delivery.partition()),
                Map.of(OFFSET, record.offset()), naming.destinationTopic(delivery.originTopic()),
                delivery.partition(), Schema.OPTIONAL_BYTES_SCHEMA, record.key(), Schema.OPTIONAL_BYTES_SCHEMA,
                record.value(), timestamp, headers);
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        Map<String, ?> partition = record.sourcePartition();
        Object offset = record.sourceOffset().get(OFFSET);
        receiver.onWritten((String) partition.get(TOPIC), ((Number) partition.get(PARTITION)).intValue(),
                ((Number) offset).longValue());
    }

    @Override
    public void commit() {
        receiver.onOffsetsFlushed();
    }

    @Override
    public void stop() {
        long start = System.nanoTime();
        clients.forEach(PeerClient::close);
        if (receiver != null) {
            receiver.close();
        }
        if (topics != null) {
            topics.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        log.info("Destination-site task stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }

    /** Acknowledgements go back on the connection the batch came from. */
    private static final class UpstreamAdapter implements ReplicationReceiver.Upstream {
        PeerClient client;

        @Override
        public String name() {
            return client.remote().toString();
        }

        @Override
        public void sendAck(AckFrame ack) {
            client.send(ack);
        }
    }
}
