package io.jetstream.kafka.sink.atleastonce;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.DeliveryGuarantee;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * At-least-once delivery (a worker without exactly-once, or a connector that does not ask for it): a
 * batch is acknowledged once the progress Connect stored covers its records, read back after each
 * offset flush ({@link ReplicationReceiver#onProgressStored}); a producer's acknowledgement alone is
 * not durable. After a crash the records written since the last stored progress come again and are
 * written twice: {@link CrashTakeover} counts them and predicts the destination offset each record's
 * progress carries for the next takeover.
 *
 * <p>Threads: {@link #polled} and {@link #predictedDestinationOffset} on the task thread;
 * {@link #written} on the producer's thread; {@link #committed} on Connect's offset-commit thread.
 */
public final class AtLeastOnceDelivery implements DeliveryGuarantee {

    private final CrashTakeover takeover;
    private final ReplicationReceiver receiver;

    public AtLeastOnceDelivery(CrashTakeover takeover, ReplicationReceiver receiver) {
        this.takeover = takeover;
        this.receiver = receiver;
    }

    /**
     * The takeover reads the destination's end offsets and tails and the stored progress
     * ({@code storedOffset}); what a predecessor wrote twice is counted in {@code rewritten-records-total}.
     */
    public static AtLeastOnceDelivery start(TopicNamingPolicy naming, DestinationTopics topics,
                                            Function<TopicPartition, Map<String, Object>> storedOffset,
                                            ClusterClients targetCluster, Duration callTimeout, Clock clock,
                                            SinkSiteMetrics metrics, ReplicationReceiver receiver) {
        CrashTakeover.Destination reads = new CrashTakeover.Destination() {
            @Override
            public long endOffset(String topic, int partition) throws Exception {
                return topics.endOffset(topic, partition);
            }

            @Override
            public Map<String, Object> storedOffset(TopicPartition origin) {
                return storedOffset.apply(origin);
            }

            @Override
            public DestinationTail.Window tail(TopicPartition destination, long endOffset, boolean withTimestamps) {
                return DestinationTail.read(targetCluster, "jetstream-tail-" + destination.topic() + "-"
                        + destination.partition(), destination, endOffset, withTimestamps, callTimeout, clock);
            }
        };
        return new AtLeastOnceDelivery(new CrashTakeover(naming, reads, metrics::rewritten), receiver);
    }

    @Override
    public boolean exactlyOnce() {
        return false;
    }

    /** The first records of a partition in this task instance: counts what a crashed predecessor wrote twice. */
    @Override
    public void polled(List<ReplicationReceiver.Delivery> deliveries) {
        takeover.takeOverNewPartitions(deliveries);
    }

    @Override
    public long predictedDestinationOffset(TopicPartition origin) {
        return takeover.predictNext(origin);
    }

    /** Corrects the destination offset predictions; acknowledges nothing: the progress is not stored yet. */
    @Override
    public void written(TopicPartition origin, long originOffset, Object topicId, RecordMetadata metadata) {
        if (metadata == null) {
            takeover.onSkipped(origin);
        } else {
            takeover.onWritten(origin, metadata.offset());
        }
    }

    /** An offset flush finished: acknowledges what the stored progress covers. */
    @Override
    public boolean committed() {
        receiver.onProgressStored();
        return true;
    }

    @Override
    public void close() {
    }
}
