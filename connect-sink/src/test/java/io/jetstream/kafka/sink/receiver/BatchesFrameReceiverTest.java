package io.jetstream.kafka.sink.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiverTest.FakeTopics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiverTest.FakeUpstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * BATCHES frames at the destination: taken or refused whole on intake, each section written as a
 * batch would be, and one signed answer per frame once every section is answered. Every buffer a
 * test makes is checked released once the receiver is closed.
 */
class BatchesFrameReceiverTest {

    private final FakeUpstream upstream = new FakeUpstream();
    private final FakeTopics topics = new FakeTopics();
    private final Map<String, Long> stored = new HashMap<>();
    private final Metrics metrics = new Metrics();
    private final BatchEncoder encoder = new BatchEncoder();
    private final FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");
    /** Every buffer holder a test made: all must be released once the receiver is closed. */
    private final List<ReferenceCounted> made = new ArrayList<>();
    private ReplicationReceiver receiver;
    private long nextId = 1;

    private ReplicationReceiver receiver(long bufferBytes, FrameIntegrity integrity) {
        receiver = new ReplicationReceiver(new ReplicationReceiver.Settings("demo", Pattern.compile("orders"),
                TopicNamingPolicy.create("prefix", "A", "."), "B", bufferBytes, 1000),
                (topic, partition) -> ReplicationReceiver.Progress.of(stored.getOrDefault(topic + "-" + partition,
                        -1L)), topics,
                new SinkSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(
                        new PluginMetricsImpl(metrics, Map.of())))), Runnable::run, integrity);
        return receiver;
    }

    @AfterEach
    void closeAndCheckNothingLeaked() {
        if (receiver != null) {
            receiver.close();
        }
        metrics.close();
        assertThat(made).as("every buffer released").allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
    }

    /** A batch of {@code offsets} after {@code prev} for {@code topic}-{@code partition}. */
    private BatchFrame batch(String topic, int partition, long prev, long... offsets) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (long offset : offsets) {
            records.add(new ReplicatedRecord(offset, 5000 + offset, ("k" + offset).getBytes(),
                    ("v" + offset).getBytes()));
        }
        return batchOf(new RecordBatch(topic, partition, prev, RecordBatch.contiguousFrom(prev), records,
                Uuid.ZERO_UUID), CompressionCodec.LZ4);
    }

    /** A batch of one 600 KB value of zeros: a few hundred bytes compressed, 600 KB once decoded. */
    private BatchFrame large(String topic, int partition, long prev) {
        return batchOf(new RecordBatch(topic, partition, prev, List.of(new ReplicatedRecord(prev + 1, 5000, null,
                new byte[600_000]))), CompressionCodec.ZSTD);
    }

    private BatchFrame batchOf(RecordBatch records, CompressionCodec codec) {
        BatchFrame batch = BatchFrame.copyOf(RoutingHeader.unrouted("demo", nextId++, "node-1", "B"),
                encoder.encode(records, codec), System.currentTimeMillis(), UnpooledByteBufAllocator.DEFAULT);
        made.add(batch);
        return batch;
    }

    /** A frame of the batches as sections, under {@code routing}; the batches' own references are released. */
    private BatchesFrame frameOf(RoutingHeader routing, BatchFrame... batches) {
        BatchesFrame frame = BatchesFrame.of(routing, System.currentTimeMillis(), List.of(batches),
                UnpooledByteBufAllocator.DEFAULT);
        for (BatchFrame batch : batches) {
            batch.release(); // the frame's body holds slices of their payloads
        }
        made.add(frame);
        return frame;
    }

    private BatchesFrame frameWithId(long id, BatchFrame... batches) {
        return frameOf(RoutingHeader.unrouted("demo", id, "node-1", "B"), batches);
    }

    private BatchesFrame frame(BatchFrame... batches) {
        return frameWithId(nextId++, batches);
    }

    /** The frame as the source signs it, then as a relay on the way passes it on (path chosen, hop advanced). */
    private BatchesFrame signed(BatchesFrame frame) {
        BatchesFrame withMac = key.sign(frame);
        return withMac.withRouting(withMac.routing().withPath(List.of("relay-a1", "relay-b1:7400")).advance());
    }

    private List<String> poll() throws InterruptedException {
        return receiver.poll(Duration.ofMillis(10)).stream()
                .map(d -> d.originTopic() + "-" + d.partition() + "@" + d.record().offset()).toList();
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
    void aFrameOfThreePartitionsIsAnsweredByOneSignedOkOnceAllThreeAreDurable() throws Exception {
        receiver(1 << 20, FrameIntegrity.of(key, true));
        BatchesFrame frame = signed(frame(batch("orders", 0, -1, 0, 1), batch("orders", 1, -1, 0),
                batch("orders", 2, -1, 0, 1, 2)));
        long frameId = frame.frameId();

        receiver.onFrame(upstream, frame);

        assertThat(poll()).containsExactly("orders-0@0", "orders-0@1", "orders-1@0", "orders-2@0", "orders-2@1",
                "orders-2@2");
        assertThat(frame.refCnt()).as("the frame's body, once every section is admitted").isZero();
        receiver.onDurable("orders", 2, 2, null);
        receiver.onDurable("orders", 0, 1, null);
        assertThat(upstream.acks).as("not before the last section is durable").isEmpty();
        receiver.onDurable("orders", 1, 0, null);
        assertThat(upstream.acks).singleElement().satisfies(ack -> {
            assertThat(ack.status()).isEqualTo(AckStatus.OK);
            assertThat(ack.reason()).isEqualTo(AckReason.NONE);
            assertThat(ack.batchId()).isEqualTo(frameId);
            assertThat(ack.topic()).isEqualTo("orders");
            assertThat(ack.partition()).isEqualTo(-1);
            assertThat(ack.lastOffset()).isEqualTo(-1);
        });
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isZero();
    }

    @Test
    void aFrameWhoseSectionsWereAllWrittenIsAnsweredOkAtOnce() throws Exception {
        receiver(1 << 20, FrameIntegrity.of(key, true));
        stored.put("orders-0", 1L);
        stored.put("orders-1", 0L);
        receiver.onFrame(upstream, signed(frame(batch("orders", 0, -1, 0, 1), batch("orders", 1, -1, 0))));
        assertThat(poll()).isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(ack -> assertThat(ack.isOk()).isTrue());
        assertEveryAckSignedByTheDestination();
    }

    /**
     * A section refused at once (a topic not allowed) does not answer the frame: its section held for
     * its predecessor does, once written and durable, and the answer is then the refusal's.
     */
    @Test
    void aRefusedSectionMakesTheFramesOneAnswerANackWithItsReasonOnlyOnceEverySectionIsAnswered()
            throws Exception {
        receiver(1 << 20, FrameIntegrity.of(key, true));
        BatchesFrame frame = signed(frame(batch("orders", 0, -1, 0), batch("secrets", 0, -1, 0),
                batch("orders", 1, 2, 3, 4)));
        long frameId = frame.frameId();

        receiver.onFrame(upstream, frame);
        assertThat(poll()).as("orders-1 waits for offsets 0..2").containsExactly("orders-0@0");
        receiver.onDurable("orders", 0, 0, null);
        assertThat(upstream.acks).as("refused and written sections answered, the held one not yet").isEmpty();

        receiver.onFrame(upstream, signed(frame(batch("orders", 1, -1, 0, 1, 2))));
        assertThat(poll()).containsExactly("orders-1@0", "orders-1@1", "orders-1@2", "orders-1@3", "orders-1@4");
        receiver.onDurable("orders", 1, 4, null);

        assertThat(upstream.acks).hasSize(2);
        assertThat(upstream.acks).filteredOn(ack -> ack.batchId() == frameId).singleElement().satisfies(ack -> {
            assertThat(ack.status()).isEqualTo(AckStatus.NACK);
            assertThat(ack.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
            assertThat(ack.topic()).as("the frame's first section's").isEqualTo("orders");
            assertThat(ack.partition()).isEqualTo(-1);
            assertThat(ack.message()).startsWith("1 of 3 sections not accepted; the first, secrets-0: topic secrets "
                    + "is not allowed");
        });
        assertThat(upstream.acks).filteredOn(ack -> ack.batchId() != frameId).singleElement()
                .satisfies(ack -> assertThat(ack.isOk()).isTrue());
        assertEveryAckSignedByTheDestination();
    }

    @Test
    void aSectionRefusedForAFullReOrderBufferMakesTheFrameARetriableOverload() throws Exception {
        receiver(1 << 20, FrameIntegrity.OFF);
        receiver.onFrame(upstream, large("orders", 0, 5)); // ahead of its predecessor: 600 KB held
        BatchesFrame frame = frame(batch("orders", 1, -1, 0), large("orders", 2, 5), large("orders", 3, 5));
        long frameId = frame.frameId();

        receiver.onFrame(upstream, frame);
        assertThat(poll()).containsExactly("orders-1@0");
        assertThat(upstream.acks).as("orders-1 is not durable yet").isEmpty();
        receiver.onDurable("orders", 1, 0, null);

        assertThat(upstream.acks).singleElement().satisfies(ack -> {
            assertThat(ack.batchId()).isEqualTo(frameId);
            assertThat(ack.reason()).isEqualTo(AckReason.OVERLOADED);
            assertThat(ack.reason().retriable()).isTrue();
            assertThat(ack.message()).startsWith("2 of 3 sections not accepted; the first, orders-2: destination "
                    + "re-order buffer full");
        });
    }

    @Test
    void aFrameWithAWrongMacIsRefusedWholeAndNothingOfItIsQueued() throws Exception {
        receiver(1 << 20, FrameIntegrity.of(key, true));
        BatchesFrame altered = signed(frame(batch("orders", 0, -1, 0), batch("orders", 1, -1, 0, 1)));
        ByteBuf body = altered.body();
        int last = body.readerIndex() + body.readableBytes() - 1;
        body.setByte(last, body.getByte(last) ^ 1); // a record of the last section
        BatchesFrame macOfAnother = signed(frame(batch("orders", 0, -1, 0)));
        BatchesFrame other = signed(frame(batch("orders", 0, -1, 0, 1)));
        BatchesFrame forged = macOfAnother.withMac(other.mac());
        other.release();

        receiver.onFrame(upstream, altered);
        receiver.onFrame(upstream, forged);
        receiver.onFrame(upstream, frame(batch("orders", 0, -1, 0))); // no MAC at all

        assertThat(receiver.bufferedBytes()).as("nothing queued").isZero();
        assertThat(poll()).isEmpty();
        assertThat(topics.ensured).as("nothing of them is used").isEmpty();
        assertThat(upstream.acks).hasSize(3).allSatisfy(nack -> {
            assertThat(nack.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
            assertThat(nack.partition()).as("the frame's answer, not a section's").isEqualTo(-1);
            assertThat(nack.message()).startsWith("integrity: the BATCHES frame");
        });
        assertThat(upstream.acks.get(0).message()).contains("MAC does not verify");
        assertThat(upstream.acks.get(2).message()).contains("carries no MAC");
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).as("once per frame").isEqualTo(3);
    }

    @Test
    void withIntegrityNotRequiredAnUnsignedFrameIsTakenAndItsAnswerSigned() throws Exception {
        receiver(1 << 20, FrameIntegrity.of(key, false));
        receiver.onFrame(upstream, frame(batch("orders", 0, -1, 0), batch("orders", 1, -1, 0)));
        assertThat(poll()).containsExactly("orders-0@0", "orders-1@0");
        receiver.onDurable("orders", 0, 0, null);
        receiver.onDurable("orders", 1, 0, null);
        assertThat(upstream.acks).singleElement().satisfies(ack -> assertThat(ack.isOk()).isTrue());
        assertEveryAckSignedByTheDestination();
        assertThat(metric("integrity-failures-total")).isZero();
    }

    @Test
    void aFrameOfAnotherStreamIsRefusedWhole() throws Exception {
        receiver(1 << 20, FrameIntegrity.OFF);
        receiver.onFrame(upstream, frameOf(RoutingHeader.unrouted("other", 7, "node-1", "B"),
                batch("orders", 0, -1, 0), batch("orders", 1, -1, 0)));

        assertThat(poll()).isEmpty();
        assertThat(upstream.acks).singleElement().satisfies(nack -> {
            assertThat(nack.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
            assertThat(nack.batchId()).isEqualTo(7);
            assertThat(nack.message()).contains("stream other is not demo");
        });
    }

    /**
     * The bound holds for the whole frame: one that does not fit is refused OVERLOADED, none of its
     * sections queued; one that fits pauses the relay connection itself (not a section's way back),
     * which draining the queue reads again.
     */
    @Test
    void theQueueBoundRefusesAWholeFrameOverloadedAndAFrameThatFitsPausesTheConnection() throws Exception {
        BatchesFrame first = frame(batch("orders", 0, -1, 0), batch("orders", 1, -1, 0), batch("orders", 2, -1, 0));
        long charged = 0;
        for (BatchesFrame.Section section : first.sections()) {
            charged += section.payloadLength() + 128;
        }
        receiver(charged + charged / 2, FrameIntegrity.OFF);
        BatchesFrame second = frame(batch("orders", 0, 0, 1), batch("orders", 1, 0, 1), batch("orders", 2, 0, 1));
        long secondId = second.frameId();

        receiver.onFrame(upstream, first);
        assertThat(receiver.bufferedBytes()).isEqualTo(charged);
        assertThat(upstream.reading).containsExactly("pause");
        receiver.onFrame(upstream, second);

        assertThat(upstream.acks).singleElement().satisfies(nack -> {
            assertThat(nack.batchId()).isEqualTo(secondId);
            assertThat(nack.reason()).isEqualTo(AckReason.OVERLOADED);
            assertThat(nack.message()).contains("queue full");
        });
        assertThat(second.refCnt()).as("refused frames are released").isZero();
        assertThat(metric("overloaded-nacks-total")).isEqualTo(1.0);
        assertThat(poll()).containsExactly("orders-0@0", "orders-1@0", "orders-2@0");
        assertThat(receiver.bufferedBytes()).isZero();
        assertThat(upstream.reading).containsExactly("pause", "resume");
    }

    /**
     * A frame re-sent (same id, same connection) while its first copy waits for durability is
     * answered once: its sections' acknowledgements do not pile up with every copy.
     */
    @Test
    void aFrameReSentWhileItsFirstCopyWaitsIsAnsweredOnce() throws Exception {
        receiver(1 << 20, FrameIntegrity.OFF);
        receiver.onFrame(upstream, frameWithId(42, batch("orders", 0, -1, 0), batch("orders", 1, -1, 0)));
        assertThat(poll()).containsExactly("orders-0@0", "orders-1@0");
        receiver.onFrame(upstream, frameWithId(42, batch("orders", 0, -1, 0), batch("orders", 1, -1, 0)));
        assertThat(poll()).as("duplicates").isEmpty();

        receiver.onDurable("orders", 0, 0, null);
        receiver.onDurable("orders", 1, 0, null);

        assertThat(upstream.acks).singleElement().satisfies(ack -> {
            assertThat(ack.batchId()).isEqualTo(42);
            assertThat(ack.isOk()).isTrue();
        });
    }

    @Test
    void framesQueuedOrArrivingAfterCloseAreReleased() throws Exception {
        ReplicationReceiver closed = receiver(1 << 20, FrameIntegrity.OFF);
        receiver = null;
        closed.onFrame(upstream, frame(batch("orders", 0, -1, 0), batch("orders", 1, -1, 0)));
        closed.close();
        closed.onFrame(upstream, frame(batch("orders", 2, -1, 0)));
        assertThat(closed.poll(Duration.ofMillis(10))).isEmpty();
        assertThat(upstream.acks).isEmpty();
        // closeAndCheckNothingLeaked checks every buffer
    }
}
