package io.jetstream.kafka.sink.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.sink.atleastonce.AtLeastOnceDelivery;
import io.jetstream.kafka.sink.atleastonce.CrashTakeover;
import io.jetstream.kafka.sink.metrics.EndToEndLiveness;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.topics.TopicProvisioner;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

public class ReplicationReceiverTest {

    /** Records the acknowledgements sent upstream. */
    public static final class FakeUpstream implements ReplicationReceiver.Upstream {
        public final List<AckFrame> acks = new ArrayList<>();
        final List<String> reading = new ArrayList<>();

        @Override
        public synchronized void pauseReading() {
            reading.add("pause");
        }

        @Override
        public synchronized void resumeReading() {
            reading.add("resume");
        }

        @Override
        public String name() {
            return "relay";
        }

        @Override
        public synchronized void sendAck(AckFrame ack) {
            acks.add(ack);
        }
    }

    /** Topic preparation that remembers what it was asked. */
    public static final class FakeTopics implements TopicProvisioner {
        final List<String> ensured = new ArrayList<>();
        public final List<TopicMetadataFrame> applied = new ArrayList<>();

        @Override
        public void ensure(String originTopic, int partition) {
            ensured.add(originTopic + "-" + partition);
        }

        @Override
        public void apply(TopicMetadataFrame metadata) {
            applied.add(metadata);
        }
    }

    private final FakeUpstream upstream = new FakeUpstream();
    private final FakeTopics topics = new FakeTopics();
    private final Map<String, Long> stored = new HashMap<>();
    private final Map<String, Uuid> storedIds = new HashMap<>();
    private final Map<String, Uuid> storedPreviousIds = new HashMap<>();
    private final Map<String, List<Uuid>> storedOlderIds = new HashMap<>();
    private final Metrics metrics = new Metrics();
    private final BatchEncoder encoder = new BatchEncoder();
    private ReplicationReceiver receiver;
    private long nextId = 1;
    private volatile boolean failReads;

    private ReplicationReceiver receiver(long bufferBytes) {
        return receiver(bufferBytes, ReplicationReceiver.GapPolicy.FAIL);
    }

    private ReplicationReceiver receiver(long bufferBytes,
                                         ReplicationReceiver.GapPolicy gapPolicy) {
        return receiver(bufferBytes, gapPolicy, ReplicationReceiver.RecreationPolicy.CONTINUE);
    }

    private ReplicationReceiver receiver(long bufferBytes,
                                         ReplicationReceiver.GapPolicy gapPolicy,
                                         ReplicationReceiver.RecreationPolicy recreationPolicy) {
        return receiver(bufferBytes, gapPolicy, recreationPolicy, FrameIntegrity.OFF);
    }

    private ReplicationReceiver receiver(FrameIntegrity integrity) {
        return receiver(1 << 20, ReplicationReceiver.GapPolicy.FAIL,
                ReplicationReceiver.RecreationPolicy.CONTINUE, integrity);
    }

    private ReplicationReceiver receiver(long bufferBytes,
                                         ReplicationReceiver.GapPolicy gapPolicy,
                                         ReplicationReceiver.RecreationPolicy recreationPolicy,
                                         FrameIntegrity integrity) {
        receiver = new ReplicationReceiver(new ReplicationReceiver.Settings("demo", Pattern.compile("orders|B\\..*"),
                TopicNamingPolicy.create("prefix", "A", "."), "B", bufferBytes, 1000, gapPolicy,
                recreationPolicy),
                (topic, partition) -> {
                    if (failReads) {
                        throw new IllegalStateException("offset store unavailable");
                    }
                    return new ReplicationReceiver.Progress(stored.getOrDefault(topic + "-" + partition, -1L),
                            storedIds.getOrDefault(topic + "-" + partition, Uuid.ZERO_UUID),
                            storedPreviousIds.getOrDefault(topic + "-" + partition, Uuid.ZERO_UUID),
                            storedOlderIds.getOrDefault(topic + "-" + partition, List.of()));
                }, topics,
                new SinkSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(
                        new PluginMetricsImpl(metrics, Map.of())))), Runnable::run, integrity);
        return receiver;
    }

    @AfterEach
    void close() {
        if (receiver != null) {
            receiver.close();
        }
        metrics.close();
    }

    private BatchFrame batch(String topic, long prev, long... offsets) {
        return covering(topic, prev, RecordBatch.contiguousFrom(prev), offsets);
    }

    private BatchFrame covering(String topic, long prev, long coveredFrom, long... offsets) {
        return incarnation(Uuid.ZERO_UUID, topic, prev, coveredFrom, offsets);
    }

    /** A batch of the incarnation {@code topicId} of its topic. */
    private BatchFrame of(Uuid topicId, String topic, long prev, long... offsets) {
        return incarnation(topicId, topic, prev, RecordBatch.contiguousFrom(prev), offsets);
    }

    private BatchFrame incarnation(Uuid topicId, String topic, long prev, long coveredFrom, long... offsets) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (long offset : offsets) {
            records.add(new ReplicatedRecord(offset, 5000 + offset, ("k" + offset).getBytes(), ("v" + offset).getBytes()));
        }
        RoutingHeader routing = RoutingHeader.unrouted("demo", nextId++, "node-1", "B");
        return BatchFrame.copyOf(routing, encoder.encode(new RecordBatch(topic, 0, prev, coveredFrom, records,
                        topicId), CompressionCodec.LZ4),
                System.currentTimeMillis(), UnpooledByteBufAllocator.DEFAULT);
    }

    private List<Long> pollOffsets() throws InterruptedException {
        return receiver.poll(Duration.ofMillis(10)).stream().map(d -> d.record().offset()).toList();
    }

    /**
     * Issue 32, pinned memory at the destination: a one-record batch read into a 16 MiB buffer (behind a
     * large frame) waits in the task's queue until the next poll, charged its own bytes; it must not keep
     * the 16 MiB buffer alive meanwhile.
     */
    @Test
    void aSmallBatchReadIntoABigBufferDoesNotPinItWhileQueued() throws Exception {
        receiver(1 << 20);
        BatchFrame small = batch("orders", -1, 0);
        ByteBuf big = PooledByteBufAllocator.DEFAULT.directBuffer(16 << 20);
        big.writerIndex(8 << 20); // as if a large frame came first
        big.writeBytes(small.payload(), small.payload().readerIndex(), small.payload().readableBytes());
        ByteBuf slice = big.retainedSlice(8 << 20, small.payload().readableBytes());
        BatchFrame inBigBuffer = small.replace(slice);
        small.release();
        big.release(); // only the batch's slice keeps it alive now, as the decoder's cumulation does

        receiver.onFrame(upstream, inBigBuffer);

        assertThat(big.refCnt()).as("the 16 MiB buffer is freed while the batch waits in the queue").isZero();
        assertThat(pollOffsets()).containsExactly(0L);
    }

    @Test
    void aBatchAboutTheSizeOfItsBufferIsQueuedWithoutACopy() throws Exception {
        receiver(1 << 20);
        BatchFrame batch = batch("orders", -1, 0, 1, 2);

        receiver.onFrame(upstream, batch);

        assertThat(batch.refCnt()).as("the same frame, held by the queue").isEqualTo(1);
        assertThat(pollOffsets()).containsExactly(0L, 1L, 2L);
        assertThat(batch.refCnt()).as("released once written").isZero();
    }

    @Test
    void aGapTheSourceCannotVouchForFailsByDefaultNamingPartitionAndRange() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 999L);
        receiver.onFrame(upstream, covering("orders", 999, 1_500, 1_500, 1_501));
        assertThatThrownBy(this::pollOffsets).isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("1000..1499").hasMessageContaining("orders-0")
                .hasMessageContaining("offset.gap.policy=accept");
        assertThat(upstream.acks).as("the batch is not acknowledged: the source sends it again").isEmpty();
        assertThat(gapMetric("offset-gaps-total")).isEqualTo(1.0);
        assertThat(gapMetric("offset-gap-offsets-total")).isEqualTo(500.0);
    }

    @Test
    void anAcceptedGapIsCountedAndReplicationContinues() throws Exception {
        receiver(1 << 20, ReplicationReceiver.GapPolicy.ACCEPT);
        stored.put("orders-0", 999L);
        receiver.onFrame(upstream, covering("orders", -1, 1_500, 1_500, 1_501));
        receiver.onFrame(upstream, batch("orders", 1_501, 1_502));
        assertThat(pollOffsets()).containsExactly(1_500L, 1_501L, 1_502L);
        assertThat(gapMetric("offset-gaps-total")).isEqualTo(1.0);
        assertThat(metric("records-out-total")).as("every record handed to Connect").isEqualTo(3.0);
    }

    @Test
    void gapsTheSourceExplainsAreNoGaps() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 999L);
        // a new chain vouching from the committed offset, then transaction markers between records
        receiver.onFrame(upstream, covering("orders", -1, 990, 1_001, 1_005));
        receiver.onFrame(upstream, batch("orders", 1_005, 1_007));
        assertThat(pollOffsets()).containsExactly(1_001L, 1_005L, 1_007L);
        assertThat(gapMetric("offset-gaps-total")).isZero();
    }

    /** The skip marker the source sends in the place of a refused batch of {@code offsets} after {@code prev}. */
    private BatchFrame skipMarker(String topic, long prev, long... offsets) {
        return skipMarker(Uuid.ZERO_UUID, topic, prev, offsets);
    }

    private BatchFrame skipMarker(Uuid topicId, String topic, long prev, long... offsets) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (long offset : offsets) {
            records.add(new ReplicatedRecord(offset, 5000 + offset, null, null));
        }
        RoutingHeader routing = RoutingHeader.unrouted("demo", nextId++, "node-1", "B");
        return BatchFrame.copyOf(routing, encoder.encode(RecordBatch.skipMarker(new RecordBatch(topic, 0, prev,
                RecordBatch.contiguousFrom(prev), records, topicId)), CompressionCodec.NONE), System.currentTimeMillis(),
                UnpooledByteBufAllocator.DEFAULT);
    }

    @Test
    void aSkipMarkerFillsTheChainSoTheBatchesAfterItAreWrittenWithoutAGapAndIsAcknowledgedOnceTheyAreDurable()
            throws Exception {
        receiver(1 << 20); // offset.gap.policy=fail
        stored.put("orders-0", 9L);
        receiver.onFrame(upstream, batch("orders", 9, 10, 11));
        receiver.onFrame(upstream, batch("orders", 14, 15, 16)); // arrives before the marker: held
        assertThat(pollOffsets()).containsExactly(10L, 11L);
        receiver.onFrame(upstream, skipMarker("orders", 11, 12, 13, 14));
        assertThat(pollOffsets()).as("nothing of the marker, then its successor").containsExactly(15L, 16L);
        assertThat(gapMetric("offset-gaps-total")).as("a vouched skip is no gap").isZero();
        assertThat(metric("skipped-at-source-records-total")).isEqualTo(3.0);
        assertThat(metric("skipped-at-source-batches-total")).isEqualTo(1.0);

        receiver.onDurable("orders", 0, 11, null);
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(11L);
        receiver.onDurable("orders", 0, 16, null);
        assertThat(upstream.acks).as("the marker once a record after it is durable, its skipped offsets never being "
                + "stored as progress").extracting(AckFrame::lastOffset).containsExactly(11L, 14L, 16L);
        assertThat(upstream.acks).allMatch(AckFrame::isOk);

        receiver.onFrame(upstream, skipMarker("orders", 11, 12, 13, 14));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).as("a re-sent marker is a duplicate").hasSize(4).allMatch(AckFrame::isOk);
        assertThat(metric("skipped-at-source-records-total")).as("counted once").isEqualTo(3.0);
    }

    @Test
    void aSkipMarkerOfATopicNothingIsWrittenOfHereIsAcknowledgedAtOnce() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, batch("secrets", -1, 0, 1));
        receiver.onFrame(upstream, skipMarker("secrets", -1, 0, 1));
        receiver.onFrame(upstream, batch("secrets", 1, 2));
        receiver.onFrame(upstream, skipMarker("secrets", 1, 2));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.NOT_AUTHORIZED,
                AckReason.NONE, AckReason.NOT_AUTHORIZED, AckReason.NONE);
        assertThat(topics.ensured).isEmpty();
        assertThat(metric("skipped-at-source-records-total")).isEqualTo(3.0);
        assertThat(metric("refused-batches-total")).as("the batches, not the markers").isEqualTo(2.0);
    }

    @Test
    void aSkipMarkerIsBelievedOnlyWithTheSourcesMac() throws Exception {
        receiver(FrameIntegrity.of(key, true));
        stored.put("orders-0", 9L);
        receiver.onFrame(upstream, skipMarker("orders", 9, 10, 11));
        receiver.onFrame(upstream, FrameSigner.ofSecret("a-relays-own-key-that-is-32-bytes-long!")
                .sign(skipMarker("orders", 9, 10, 11)));
        receiver.onFrame(upstream, signed(batch("orders", 11, 12)));
        assertThat(pollOffsets()).as("the batch after an unbelieved marker waits").isEmpty();
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.NOT_AUTHORIZED,
                AckReason.NOT_AUTHORIZED);
        assertThat(metric("integrity-failures-total")).isEqualTo(2);

        receiver.onFrame(upstream, signed(skipMarker("orders", 9, 10, 11)));
        assertThat(pollOffsets()).containsExactly(12L);
        assertThat(metric("skipped-at-source-records-total")).isEqualTo(2.0);
        assertEveryAckSignedByTheDestination();
    }

    private static final Uuid OLD = Uuid.randomUuid();
    private static final Uuid NEW = Uuid.randomUuid();

    @Test
    void aSkipMarkerOfTheIncarnationBeforeIsAcknowledgedAtOnceWhereItsBatchWasRefused() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 4L);
        storedIds.put("orders-0", NEW);
        storedPreviousIds.put("orders-0", OLD);
        receiver.onFrame(upstream, of(OLD, "orders", 999, 1_000));
        receiver.onFrame(upstream, skipMarker(OLD, "orders", 999, 1_000));
        receiver.onFrame(upstream, of(NEW, "orders", 4, 5));
        assertThat(pollOffsets()).as("the current incarnation goes on").containsExactly(5L);
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.OBSOLETE_INCARNATION,
                AckReason.NONE);
        assertThat(metric("skipped-at-source-records-total")).isEqualTo(1.0);
    }

    @Test
    void aRecreatedTopicIsReplicatedFromItsFirstRecordAfterTheOldOnes() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 999L);
        storedIds.put("orders-0", OLD);
        receiver.onFrame(upstream, of(OLD, "orders", 999, 1_000));
        receiver.onFrame(upstream, of(OLD, "orders", 1_000, 1_001)); // handed over, not committed yet
        List<ReplicationReceiver.Delivery> old = receiver.poll(Duration.ofMillis(10));
        assertThat(old).extracting(d -> d.record().offset()).containsExactly(1_000L, 1_001L);

        receiver.onFrame(upstream, of(NEW, "orders", -1, 0, 1, 2));
        receiver.onFrame(upstream, of(NEW, "orders", 2, 3));
        List<ReplicationReceiver.Delivery> fresh = receiver.poll(Duration.ofMillis(10));
        assertThat(fresh).as("offsets the old topic had written are not duplicates of the new one")
                .extracting(d -> d.record().offset()).containsExactly(0L, 1L, 2L, 3L);
        assertThat(fresh).allSatisfy(d -> {
            assertThat(d.incarnation().topicId).isEqualTo(NEW);
            assertThat(d.incarnation().previousTopicId).isEqualTo(OLD);
        });
        assertThat(gapMetric("topic-recreations-total")).isEqualTo(1.0);

        receiver.onDurable("orders", 0, 1_001, OLD.toString());
        assertThat(upstream.acks).as("the old incarnation's commits release nothing of the new one").isEmpty();
        receiver.onDurable("orders", 0, 2, NEW.toString());
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(2L);

        receiver.onFrame(upstream, of(OLD, "orders", 1_001, 1_002));
        assertThat(pollOffsets()).as("a late batch of the deleted topic is never written").isEmpty();
        assertThat(upstream.acks).last().satisfies(ack -> {
            assertThat(ack.reason()).isEqualTo(AckReason.OBSOLETE_INCARNATION);
            assertThat(ack.reason().retriable()).isFalse();
        });
    }

    @Test
    void aRestartedTaskKnowsTheIncarnationAndTheOneBeforeFromStoredProgress() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 2L);
        storedIds.put("orders-0", NEW);
        storedPreviousIds.put("orders-0", OLD);
        receiver.onFrame(upstream, of(OLD, "orders", 999, 1_000));
        receiver.onFrame(upstream, of(NEW, "orders", 2, 3));
        assertThat(pollOffsets()).containsExactly(3L);
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.OBSOLETE_INCARNATION);
        assertThat(gapMetric("topic-recreations-total")).isZero();
    }

    @Test
    void progressStoredWithoutAnIdTakesTheFirstIdThatArrives() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 9L);
        receiver.onFrame(upstream, of(OLD, "orders", 9, 9, 10));
        assertThat(pollOffsets()).as("the stored progress is the same topic's").containsExactly(10L);
        receiver.onFrame(upstream, covering("orders", 10, 11, 11));
        assertThat(pollOffsets()).as("a batch without an id belongs to the current incarnation").containsExactly(11L);
        assertThat(gapMetric("topic-recreations-total")).isZero();
    }

    /**
     * Issue 32, a relay replaying old frames (their MACs stay valid): a batch without a topic id that
     * does not follow what was written is not held. Held, it pinned buffer bytes for good (nothing
     * sends its predecessor), until the buffer filled and every other batch was refused OVERLOADED.
     */
    @Test
    void aBatchWithoutATopicIdThatDoesNotFollowIsRefusedRetriablyAndNotHeldWhereTheIncarnationIsKnown()
            throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 9L);
        storedIds.put("orders-0", OLD);

        receiver.onFrame(upstream, covering("orders", 50, 51, 51, 52));

        assertThat(pollOffsets()).isEmpty();
        assertThat(receiver.bufferedBytes()).as("nothing held").isZero();
        assertThat(upstream.acks).singleElement().satisfies(ack -> {
            assertThat(ack.reason()).isEqualTo(AckReason.WRITE_FAILED);
            assertThat(ack.reason().retriable()).as("a sender that lost the id race sends it again").isTrue();
            assertThat(ack.message()).contains("no topic id").contains("does not follow");
        });
        assertThat(metric("incarnation-refusals-total")).isEqualTo(1.0);

        receiver.onFrame(upstream, of(OLD, "orders", 9, 10));
        receiver.onFrame(upstream, covering("orders", 10, 11, 11));
        assertThat(pollOffsets()).as("the incarnation goes on; a batch without an id that follows it is its own")
                .containsExactly(10L, 11L);
    }

    /**
     * Issue 32: after a recreation a batch without a topic id may be the old topic's (replayed, or
     * sent by a source that could not read the id while the topic was being deleted): written, its
     * records would land in the new topic's sequence. Refused, even when its offsets chain.
     */
    @Test
    void aBatchWithoutATopicIdIsNeverWrittenIntoATopicRecreatedSince() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 2L);
        storedIds.put("orders-0", NEW);
        storedPreviousIds.put("orders-0", OLD);

        receiver.onFrame(upstream, batch("orders", 1, 2, 3, 4));

        assertThat(pollOffsets()).as("the old topic's offsets 3 and 4 are not the new one's").isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(ack -> {
            assertThat(ack.reason()).isEqualTo(AckReason.WRITE_FAILED);
            assertThat(ack.message()).contains("no topic id").contains("deleted and recreated");
        });
        receiver.onFrame(upstream, of(NEW, "orders", 2, 3));
        assertThat(pollOffsets()).containsExactly(3L);
        assertThat(metric("incarnation-refusals-total")).isEqualTo(1.0);
    }

    /**
     * Issue 32: only the incarnation before the current one used to be refused; a replayed batch of
     * one left two recreations ago was taken for a third recreation, its records written after the
     * current topic's, and the current topic's own batches then refused as obsolete.
     */
    @Test
    void aReplayedBatchOfAnIncarnationLeftTwoRecreationsAgoIsRefusedNotTakenForARecreation() throws Exception {
        Uuid newest = Uuid.randomUuid();
        receiver(1 << 20);
        stored.put("orders-0", 999L);
        storedIds.put("orders-0", OLD);
        receiver.onFrame(upstream, of(NEW, "orders", -1, 0, 1));
        receiver.onFrame(upstream, of(newest, "orders", -1, 0));
        assertThat(pollOffsets()).containsExactly(0L, 1L, 0L);
        assertThat(gapMetric("topic-recreations-total")).isEqualTo(2.0);

        receiver.onFrame(upstream, of(OLD, "orders", -1, 0, 1, 2));
        receiver.onFrame(upstream, of(NEW, "orders", 1, 2));
        assertThat(pollOffsets()).as("neither left incarnation is written again").isEmpty();
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.OBSOLETE_INCARNATION,
                AckReason.OBSOLETE_INCARNATION);
        assertThat(upstream.acks.get(0).message()).contains(OLD.toString()).contains(newest.toString());
        assertThat(gapMetric("topic-recreations-total")).isEqualTo(2.0);
        assertThat(metric("incarnation-refusals-total")).isEqualTo(2.0);

        receiver.onFrame(upstream, of(newest, "orders", 0, 1));
        List<ReplicationReceiver.Delivery> current = receiver.poll(Duration.ofMillis(10));
        assertThat(current).extracting(d -> d.record().offset()).containsExactly(1L);
        assertThat(current).singleElement().satisfies(d -> {
            assertThat(d.incarnation().previousTopicId).isEqualTo(NEW);
            assertThat(d.incarnation().olderTopicIds).as("stored with the progress").containsExactly(OLD);
        });
    }

    @Test
    void aRestartedTaskRefusesEveryIncarnationItsStoredProgressLeft() throws Exception {
        Uuid newest = Uuid.randomUuid();
        receiver(1 << 20);
        stored.put("orders-0", 5L);
        storedIds.put("orders-0", newest);
        storedPreviousIds.put("orders-0", NEW);
        storedOlderIds.put("orders-0", List.of(OLD));

        receiver.onFrame(upstream, of(OLD, "orders", -1, 0, 1, 2, 3, 4, 5, 6));
        receiver.onFrame(upstream, of(NEW, "orders", -1, 0, 1, 2, 3, 4, 5, 6));
        receiver.onFrame(upstream, of(newest, "orders", 5, 6));

        assertThat(pollOffsets()).containsExactly(6L);
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.OBSOLETE_INCARNATION,
                AckReason.OBSOLETE_INCARNATION);
        assertThat(gapMetric("topic-recreations-total")).isZero();
    }

    @Test
    void aPartitionRemembersABoundedNumberOfIncarnationsItLeft() {
        List<Uuid> ids = new ArrayList<>();
        ReplicationReceiver.Incarnation last = new ReplicationReceiver.Incarnation(Uuid.randomUuid(), Uuid.ZERO_UUID);
        ids.add(last.topicId);
        for (int i = 0; i < ReplicationReceiver.Incarnation.RETIRED_KEPT + 3; i++) {
            last = last.replacedBy(Uuid.randomUuid());
            ids.add(last.topicId);
        }
        ReplicationReceiver.Incarnation incarnation = last;
        Uuid current = ids.remove(ids.size() - 1);
        assertThat(incarnation.topicId).isEqualTo(current);
        assertThat(incarnation.left(current)).isFalse();
        List<Uuid> newestFirst = new ArrayList<>(ids);
        java.util.Collections.reverse(newestFirst);
        assertThat(newestFirst.subList(0, ReplicationReceiver.Incarnation.RETIRED_KEPT))
                .allSatisfy(id -> assertThat(incarnation.left(id)).isTrue());
        assertThat(newestFirst.subList(ReplicationReceiver.Incarnation.RETIRED_KEPT, newestFirst.size()))
                .allSatisfy(id -> assertThat(incarnation.left(id)).isFalse());
        assertThat(incarnation.previousTopicId).isEqualTo(newestFirst.get(0));
        assertThat(incarnation.olderTopicIds).hasSize(ReplicationReceiver.Incarnation.RETIRED_KEPT - 1);
    }

    @Test
    void aRecreatedTopicFailsTheTaskWhenThePolicySaysSo() throws Exception {
        receiver(1 << 20, ReplicationReceiver.GapPolicy.FAIL,
                ReplicationReceiver.RecreationPolicy.FAIL);
        stored.put("orders-0", 999L);
        storedIds.put("orders-0", OLD);
        receiver.onFrame(upstream, of(NEW, "orders", -1, 0, 1));
        assertThatThrownBy(this::pollOffsets).isInstanceOf(TopicRecreatedException.class)
                .hasMessageContaining("orders").hasMessageContaining(OLD.toString())
                .hasMessageContaining(NEW.toString()).hasMessageContaining("topic.recreation.policy=continue");
        assertThat(upstream.acks).as("not acknowledged: the source sends it again").isEmpty();
        assertThat(gapMetric("topic-recreations-total")).isEqualTo(1.0);
    }

    private double gapMetric(String name) {
        return metrics.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && "orders".equals(e.getKey().tags().get("topic"))
                        && "0".equals(e.getKey().tags().get("partition")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void anEmptyBatchContinuingTheChainIsAHeartbeatAcknowledgedAtOnceWritingNothing() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 14L);

        receiver.onFrame(upstream, batch("orders", 14));

        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(ack -> assertThat(ack.isOk()).isTrue());
        assertThat(gapMetric(EndToEndLiveness.HEARTBEAT_AGE)).as("heard just now").isBetween(0.0, 5.0);
    }

    @Test
    void deliversInOrderAndAcknowledgesWhenCommittedExactlyOnce() throws Exception {
        receiver(1 << 20);
        stored.put("orders-0", 9L);
        receiver.onFrame(upstream, batch("orders", 12, 13, 14));
        receiver.onFrame(upstream, batch("orders", 9, 10, 11, 12));
        assertThat(pollOffsets()).containsExactly(10L, 11L, 12L, 13L, 14L);
        assertThat(topics.ensured).contains("orders-0");
        assertThat(upstream.acks).isEmpty();
        receiver.onDurable("orders", 0, 12, null);
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(12L);
        receiver.onDurable("orders", 0, 14, null);
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(12L, 14L);
        assertThat(upstream.acks).allMatch(AckFrame::isOk);
    }

    /** At-least-once as the task runs it: Connect reports records written, then flushes offsets. */
    private DeliveryGuarantee atLeastOnce() {
        return new AtLeastOnceDelivery(new CrashTakeover(TopicNamingPolicy.create("prefix", "A", "."), null,
                count -> { }), receiver);
    }

    @Test
    void atLeastOnceAcknowledgesOnlyWhatTheStoredProgressCovers() throws Exception {
        receiver(1 << 20);
        DeliveryGuarantee atLeastOnce = atLeastOnce();
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        receiver.onFrame(upstream, batch("orders", 1, 2, 3));
        assertThat(pollOffsets()).containsExactly(0L, 1L, 2L, 3L);
        atLeastOnce.written(new TopicPartition("orders", 0), 3, null,
                new RecordMetadata(new TopicPartition("A.orders", 0), 3, 0, 0L, 1, 1));
        assertThat(upstream.acks).as("producer acknowledgement alone is not durable").isEmpty();
        atLeastOnce.committed();
        assertThat(upstream.acks).as("the flush stored nothing yet").isEmpty();
        stored.put("orders-0", 2L);
        atLeastOnce.committed();
        assertThat(upstream.acks).as("stored progress covers the first batch only")
                .extracting(AckFrame::lastOffset).containsExactly(1L);
        stored.put("orders-0", 3L);
        atLeastOnce.committed();
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(1L, 3L);
    }

    @Test
    void atLeastOnceKeepsAcknowledgementsWaitingWhenTheStoreCannotBeRead() throws Exception {
        receiver(1 << 20);
        DeliveryGuarantee atLeastOnce = atLeastOnce();
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(pollOffsets()).containsExactly(0L, 1L);
        stored.put("orders-0", 1L);
        failReads = true;
        atLeastOnce.committed();
        assertThat(upstream.acks).isEmpty();
        failReads = false;
        atLeastOnce.committed();
        assertThat(upstream.acks).extracting(AckFrame::lastOffset).containsExactly(1L);
    }

    @Test
    void resentBatchIsDroppedAsDuplicateAndAcknowledged() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(pollOffsets()).containsExactly(0L, 1L);
        receiver.onDurable("orders", 0, 1, null);
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).hasSize(2);
    }

    @Test
    void refusesTopicsOutsideTheAllowListAndReplicasOfThisSite() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, batch("secrets", -1, 0));
        receiver.onFrame(upstream, batch("B.orders", -1, 0));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).extracting(AckFrame::reason)
                .containsExactly(AckReason.NOT_AUTHORIZED, AckReason.NOT_AUTHORIZED);
        assertThat(topics.ensured).isEmpty();
    }

    @Test
    void heldBatchesAreChargedTheirDecodedSizeNotTheirCompressedOne() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, large(5, 6)); // ahead of its predecessor: held, 600 KB decoded
        receiver.onFrame(upstream, large(6, 7));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).as("the second would take the hold area past 1 MiB decoded, though both "
                + "batches together compress to a few KB").extracting(AckFrame::reason)
                .containsExactly(AckReason.OVERLOADED);
        assertThat(receiver.bufferedBytes()).isGreaterThan(600_000);
    }

    /** A batch of one 600 KB value of zeros (a few hundred bytes compressed). */
    private BatchFrame large(long prev, long offset) {
        List<ReplicatedRecord> records = List.of(new ReplicatedRecord(offset, 5000, null, new byte[600_000]));
        return BatchFrame.copyOf(RoutingHeader.unrouted("demo", nextId++, "node-1", "B"),
                encoder.encode(new RecordBatch("orders", 0, prev, records), CompressionCodec.ZSTD),
                System.currentTimeMillis(), UnpooledByteBufAllocator.DEFAULT);
    }

    @Test
    void aShareTakenOverByANewerSubscriberFailsTheTaskVisibly() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(pollOffsets()).containsExactly(0L, 1L);
        receiver.onFrame(upstream, ErrorFrame.of(ErrorCode.SUPERSEDED, "share 0/2 of stream demo is held by node-x"));
        assertThatThrownBy(this::pollOffsets).isInstanceOf(TaskSupersededException.class)
                .hasMessageContaining("node-x").hasMessageContaining("subscriber token");
    }

    @Test
    void fullBufferRefusesWithARetriableOverload() throws Exception {
        receiver(300);
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        receiver.onFrame(upstream, batch("orders", 1, 2, 3));
        assertThat(upstream.acks).extracting(AckFrame::reason).containsExactly(AckReason.OVERLOADED);
        assertThat(AckReason.OVERLOADED.retriable()).isTrue();
        assertThat(pollOffsets()).containsExactly(0L, 1L);
    }

    @Test
    void aQueueHalfFullPausesTheRelayConnectionUntilPollDrainsIt() throws Exception {
        receiver(1000);
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(upstream.reading).isEmpty();
        receiver.onFrame(upstream, batch("orders", 1, 2, 3));
        receiver.onFrame(upstream, batch("orders", 3, 4, 5));
        assertThat(upstream.reading).containsExactly("pause");
        assertThat(upstream.acks).isEmpty(); // paused, not refused: nothing is sent twice
        assertThat(pollOffsets()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(upstream.reading).containsExactly("pause", "resume");
    }

    @Test
    void aNewTaskInstanceTakesOverTheMetricsOfAnOrphanedOne() {
        receiver(1 << 20);
        PluginMetricsRegistration shared = new PluginMetricsRegistration(new PluginMetricsImpl(metrics,
                Map.of("task", "0")));
        SinkSiteMetrics orphan = new SinkSiteMetrics(new TaskMetrics(shared));
        orphan.gauge("buffered-bytes", "doc", () -> 1);
        SinkSiteMetrics successor = new SinkSiteMetrics(new TaskMetrics(shared));
        successor.gauge("buffered-bytes", "doc", () -> 2);
        successor.duplicates(3);
        assertThat(metrics.metrics().keySet()).anyMatch(n -> n.name().equals("buffered-bytes"));
    }

    // ---- end-to-end integrity ----------------------------------------------------------------

    private final FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");

    /** A batch as the source signs it, then as a relay on the way passes it on (path chosen, hop advanced). */
    private BatchFrame signed(BatchFrame batch) {
        BatchFrame frame = key.sign(batch);
        return frame.withRouting(frame.header().routing().withPath(List.of("relay-a1", "relay-b1:7400")).advance());
    }

    private double metric(String name) {
        return metrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    private void assertEveryAckSignedByTheDestination() {
        assertThat(upstream.acks).allSatisfy(ack -> assertThat(key.verify(ack)).as(ack.toString())
                .isEqualTo(FrameSigner.Verdict.VALID));
    }

    @Test
    void aSignedBatchIsWrittenAndItsAckAndTheDuplicatesAckCarryTheDestinationsMac() throws Exception {
        receiver(FrameIntegrity.of(key, true));
        receiver.onFrame(upstream, signed(batch("orders", -1, 0, 1)));
        assertThat(pollOffsets()).containsExactly(0L, 1L);
        receiver.onDurable("orders", 0, 1, null);
        receiver.onFrame(upstream, signed(batch("orders", -1, 0, 1)));
        assertThat(pollOffsets()).as("a re-sent batch").isEmpty();

        assertThat(upstream.acks).hasSize(2).allMatch(AckFrame::isOk);
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isZero();
    }

    @Test
    void withIntegrityRequiredAnUnsignedBatchIsRefusedNeverWrittenAndCounted() throws Exception {
        receiver(FrameIntegrity.of(key, true));
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));

        assertThat(pollOffsets()).isEmpty();
        assertThat(topics.ensured).as("nothing of it is used").isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(nack -> {
            assertThat(nack.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
            assertThat(nack.reason().retriable()).isFalse();
            assertThat(nack.message()).contains("integrity").contains("carries no MAC");
        });
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isEqualTo(1);
    }

    /** What a relay on the path could do: rewrite the order or the offsets, or the records themselves. */
    @Test
    void aBatchARelayAlteredIsRefusedWhateverItChanged() throws Exception {
        receiver(FrameIntegrity.of(key, true));
        stored.put("orders-0", 9L);
        BatchFrame prevOffsetForged = signed(batch("orders", 9, 10, 11));
        BatchHeader h = prevOffsetForged.header();
        receiver.onFrame(upstream, new BatchFrame(new BatchHeader(h.routing(), h.topic(), h.partition(), 1_000,
                h.firstOffset(), h.lastOffset(), h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(),
                h.crc32c(), h.mac()), prevOffsetForged.payload()));
        BatchFrame lastOffsetForged = signed(batch("orders", 9, 10, 11));
        h = lastOffsetForged.header();
        receiver.onFrame(upstream, new BatchFrame(new BatchHeader(h.routing(), h.topic(), h.partition(),
                h.prevOffset(), h.firstOffset(), 1_000_000, h.recordCount(), h.createdAtMillis(), h.codec(),
                h.uncompressedSize(), h.crc32c(), h.mac()), lastOffsetForged.payload()));
        BatchFrame payloadForged = signed(batch("orders", 9, 10, 11));
        int at = payloadForged.payload().readerIndex() + payloadForged.payload().readableBytes() - 1;
        payloadForged.payload().setByte(at, payloadForged.payload().getByte(at) ^ 1);
        receiver.onFrame(upstream, payloadForged);
        BatchFrame macOfAnother = signed(batch("orders", 9, 10, 11));
        BatchFrame other = signed(batch("orders", 11, 12));
        receiver.onFrame(upstream, macOfAnother.withMac(other.header().mac()));
        other.release();

        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).hasSize(4).allSatisfy(nack -> {
            assertThat(nack.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
            assertThat(nack.message()).contains("MAC does not verify");
        });
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isEqualTo(4);

        receiver.onFrame(upstream, signed(batch("orders", 9, 10, 11)));
        assertThat(pollOffsets()).as("the batch as the source made it").containsExactly(10L, 11L);
    }

    @Test
    void anotherKeyAtTheSourceIsRefusedAsAWrongMac() throws Exception {
        receiver(FrameIntegrity.of(FrameSigner.ofSecret("a-different-key-the-source-does-not-hold"), true));
        receiver.onFrame(upstream, signed(batch("orders", -1, 0)));
        assertThat(pollOffsets()).isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(nack -> assertThat(nack.message())
                .contains("integrity.key differs"));
    }

    @Test
    void withIntegrityNotRequiredAnUnsignedBatchIsTakenButAWrongMacStillRefused() throws Exception {
        receiver(FrameIntegrity.of(key, false));
        receiver.onFrame(upstream, batch("orders", -1, 0, 1));
        assertThat(pollOffsets()).containsExactly(0L, 1L);
        BatchFrame altered = signed(batch("orders", 1, 2));
        receiver.onFrame(upstream, altered.withMac(FrameMac.of(new byte[FrameMac.LENGTH])));
        assertThat(pollOffsets()).isEmpty();
        receiver.onDurable("orders", 0, 1, null);
        assertThat(upstream.acks).extracting(AckFrame::reason)
                .containsExactlyInAnyOrder(AckReason.NOT_AUTHORIZED, AckReason.NONE);
        assertEveryAckSignedByTheDestination();
    }

    @Test
    void topicMetadataIsAppliedOnlyWithAValidMacWhenIntegrityIsRequired() throws Exception {
        receiver(FrameIntegrity.of(key, true));
        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("demo", 99, "node-1", "B"),
                "orders", 6, Map.of("retention.ms", "1000"));
        receiver.onFrame(upstream, metadata);
        TopicMetadataFrame signedMetadata = key.sign(metadata);
        receiver.onFrame(upstream, new TopicMetadataFrame(signedMetadata.routing(), "orders", 600,
                signedMetadata.configs(), signedMetadata.mac()));
        assertThat(topics.applied).as("unsigned, and a partition count grown on the way").isEmpty();

        receiver.onFrame(upstream, signedMetadata.withRouting(signedMetadata.routing().withPath(List.of("relay-b1"))));
        assertThat(topics.applied).extracting(TopicMetadataFrame::partitionCount).containsExactly(6);
        assertThat(upstream.acks).extracting(AckFrame::reason)
                .containsExactly(AckReason.NOT_AUTHORIZED, AckReason.NOT_AUTHORIZED, AckReason.NONE);
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isEqualTo(2);
    }

    @Test
    void topicMetadataIsAppliedAndAcknowledged() throws Exception {
        receiver(1 << 20);
        receiver.onFrame(upstream, new TopicMetadataFrame(RoutingHeader.unrouted("demo", 99, "node-1", "B"), "orders", 6,
                Map.of("retention.ms", "1000")));
        assertThat(pollOffsets()).isEmpty();
        assertThat(topics.applied).extracting(TopicMetadataFrame::partitionCount).containsExactly(6);
        assertThat(upstream.acks).extracting(AckFrame::batchId).containsExactly(99L);
    }
}
