package io.jetstream.kafka.source.sender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.schema.SchemaTranslator;
import io.jetstream.kafka.source.SenderMetricsFixture;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicationSenderTest {

    /** A sender of metadata that does not listen to the answers. */
    private static final MetadataInFlight.Listener NO_ANSWERS = (topic, partitions, generation, applied) -> { };

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final FakeRelay r1 = new FakeRelay("r1");
    private final FakeRelay r2 = new FakeRelay("r2");
    private final Metrics kafkaMetrics = new Metrics();
    private final TopicPartition p0 = new TopicPartition("orders", 0);
    private ReplicationSender sender;

    private ReplicationSender sender(int maxRecords, long maxBufferedBytes) {
        return sender(maxRecords, maxBufferedBytes, SenderIntegrity.OFF);
    }

    private ReplicationSender sender(int maxRecords, long maxBufferedBytes, SenderIntegrity integrity) {
        BatchDecision caps = new BatchDecision(maxRecords, 1 << 20, Duration.ofMillis(20), 100, 64L << 20);
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), maxBufferedBytes, integrity), List.of(r1, r2),
                new FixedBatchPolicy(caps), now::get, UnpooledByteBufAllocator.DEFAULT,
                metrics());
        sender.assign(List.of(p0));
        return sender;
    }

    /** The task's metrics, registered in {@code kafkaMetrics}. */
    private SenderEvents metrics() {
        return SenderMetricsFixture.events(kafkaMetrics);
    }

    @AfterEach
    void release() {
        if (sender != null) {
            sender.close();
        }
        r1.releaseAll();
        r2.releaseAll();
        kafkaMetrics.close();
    }

    private static ReplicatedRecord record(long offset) {
        return new ReplicatedRecord(offset, 1000 + offset, ("k" + offset).getBytes(), new byte[64]);
    }

    private List<BatchFrame> allSent() {
        List<BatchFrame> all = new ArrayList<>(r1.sent);
        all.addAll(r2.sent);
        all.sort((a, b) -> Long.compare(a.header().batchId(), b.header().batchId()));
        return all;
    }

    private static AckFrame ok(BatchFrame frame) {
        return AckFrame.ok(frame.header());
    }

    private ReplicationSender heartbeatingSender(Duration interval) {
        BatchDecision caps = new BatchDecision(2, 1 << 20, Duration.ofMillis(20), 100, 64L << 20);
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 64L << 20, SenderIntegrity.OFF, interval),
                List.of(r1, r2), new FixedBatchPolicy(caps), now::get, UnpooledByteBufAllocator.DEFAULT,
                metrics());
        sender.assign(List.of(p0));
        return sender;
    }

    @Test
    void anIdleAcknowledgedPartitionSendsAnEmptyBatchThatContinuesItsChainAsEndToEndHeartbeat() throws Exception {
        heartbeatingSender(Duration.ofSeconds(1));
        sender.append(p0, record(10));
        sender.append(p0, record(11)); // closes a batch of 2
        BatchFrame data = allSent().get(0);
        sender.tick();
        assertThat(allSent()).as("no heartbeat while a batch is unacknowledged").hasSize(1);
        sender.onFrame(r1, ok(data));

        now.addAndGet(Duration.ofMillis(999).toNanos());
        sender.tick();
        assertThat(allSent()).as("not idle for an interval yet").hasSize(1);
        now.addAndGet(Duration.ofMillis(500).toNanos()); // heartbeats are looked for every quarter interval
        int windowBefore = sender.inFlightBatches();
        sender.tick();

        assertThat(allSent()).hasSize(2);
        BatchHeader heartbeat = allSent().get(1).header();
        assertThat(heartbeat.recordCount()).isZero();
        assertThat(heartbeat.prevOffset()).isEqualTo(11);
        assertThat(heartbeat.firstOffset()).isEqualTo(11);
        assertThat(heartbeat.lastOffset()).isEqualTo(11);
        assertThat(new BatchDecoder().decode(allSent().get(1).encodedBatch()).records()).isEmpty();
        assertThat(sender.inFlightBatches()).as("heartbeats stay out of the window").isEqualTo(windowBefore);
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 12L);

        now.addAndGet(Duration.ofSeconds(2).toNanos());
        sender.tick();
        assertThat(allSent()).as("one unanswered heartbeat per partition at a time").hasSize(2);
        sender.onFrame(r2, ok(allSent().get(1)));
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        sender.tick();
        assertThat(allSent()).hasSize(3);
        assertThat(sender.committableOffsets(List.of(p0))).as("answers to heartbeats commit nothing new")
                .containsEntry(p0, 12L);

        sender.append(p0, record(12));
        sender.append(p0, record(13));
        assertThat(allSent().get(3).header().prevOffset()).as("the chain goes on after heartbeats").isEqualTo(11);
    }

    @Test
    void manyIdlePartitionsSendAtMostALooksShareOfTwentyHeartbeatsASecond() {
        heartbeatingSender(Duration.ofSeconds(1)); // looks every 250 ms: 5 heartbeats a look
        List<TopicPartition> partitions = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            partitions.add(new TopicPartition("orders", i));
        }
        sender.assign(partitions);
        for (int i = 0; i < partitions.size(); i++) {
            sender.append(partitions.get(i), record(2L * i));
            sender.append(partitions.get(i), record(2L * i + 1)); // closes a batch of 2
        }
        for (BatchFrame data : allSent()) {
            sender.onFrame(r1, ok(data));
        }
        int dataFrames = allSent().size();

        now.addAndGet(Duration.ofSeconds(2).toNanos());
        sender.tick();
        assertThat(allSent().size() - dataFrames).as("one look's share").isEqualTo(5);
        for (int look = 0; look < 40; look++) { // 10 s
            now.addAndGet(Duration.ofMillis(250).toNanos());
            sender.tick();
        }
        assertThat(allSent().size() - dataFrames).as("at most 20 a second, never one per idle partition")
                .isEqualTo(5 + 40 * 5);
    }

    @Test
    void aPartitionWithoutAClosedBatchSinceItsAssignmentSendsNoHeartbeat() {
        heartbeatingSender(Duration.ofMillis(100));
        now.addAndGet(Duration.ofSeconds(5).toNanos());

        sender.tick();

        assertThat(allSent()).isEmpty();
    }

    @Test
    void theLargestRecordFitsTheSmallestRelayFrameWithRoomForItsFraming() {
        sender(10, 64L << 20);
        r1.maxPayloadBytes = 4 << 20;
        r2.maxPayloadBytes = 2 << 20;
        assertThat(sender.maxRecordBytes()).isEqualTo((2 << 20) - RelayChoice.RECORD_ENCODING_ALLOWANCE);
        r2.maxPayloadBytes = 1000;
        assertThat(sender.maxRecordBytes()).as("never negative").isZero();
    }

    @Test
    void theLargestRecordIsUnknownUntilARelayHasAnnouncedItsFrameLimit() {
        sender(10, 64L << 20);
        r1.maxPayloadBytes = 0;
        r2.maxPayloadBytes = 0;
        assertThat(sender.maxRecordBytes()).isEqualTo(RelayChoice.RECORD_LIMIT_UNKNOWN);
        r2.maxPayloadBytes = 2 << 20;
        assertThat(sender.maxRecordBytes()).as("a relay not yet connected does not count")
                .isEqualTo((2 << 20) - RelayChoice.RECORD_ENCODING_ALLOWANCE);
    }

    @Test
    void aReceiptIsNoAnswerButTimesThePathForTheBatchPolicy() {
        BatchDecision caps = new BatchDecision(2, 1 << 20, Duration.ofMillis(20), 100, 64L << 20);
        List<long[]> receipts = new ArrayList<>();
        BatchPolicy recording = new BatchPolicy() {
            @Override
            public BatchDecision decision(long nowNanos) {
                return caps;
            }

            @Override
            public void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
                receipts.add(new long[] {records, wireBytes, sentAtNanos, receivedAtNanos});
            }
        };
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 30), List.of(r1, r2), recording, now::get,
                UnpooledByteBufAllocator.DEFAULT, metrics());
        sender.assign(List.of(p0));
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        BatchFrame batch = allSent().get(0);
        long sentAt = now.get();

        now.addAndGet(Duration.ofMillis(30).toNanos());
        sender.onFrame(r1, AckFrame.received(batch.header()));
        assertThat(receipts).hasSize(1);
        assertThat(receipts.get(0)[0]).isEqualTo(2);
        assertThat(receipts.get(0)[3] - receipts.get(0)[2]).isEqualTo(Duration.ofMillis(30).toNanos());
        assertThat(receipts.get(0)[2]).isEqualTo(sentAt);
        assertThat(sender.inFlightBatches()).as("still waiting for the answer").isEqualTo(1);
        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();
        assertThat(r1.sent.size() + r2.sent.size()).as("not taken for a NACK: nothing re-sent").isEqualTo(1);

        sender.onFrame(r1, ok(batch));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 2L);
        sender.onFrame(r1, AckFrame.received(batch.header()));
        assertThat(receipts).as("a receipt after the answer is ignored").hasSize(1);
    }

    @Test
    void commitsOnlyWhatTheDestinationAcknowledged() {
        sender(2, 1 << 30);
        for (long offset = 0; offset < 6; offset++) {
            sender.append(p0, record(offset));
        }
        List<BatchFrame> sent = allSent();
        assertThat(sent).hasSize(3);
        assertThat(sent).extracting(f -> f.header().prevOffset()).containsExactly(-1L, 1L, 3L);
        assertThat(sent.get(0).header().routing().isRouted()).isFalse();
        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();

        sender.onFrame(r1, ok(sent.get(1)));
        assertThat(sender.committableOffsets(List.of(p0))).as("batch 0 is not acknowledged").isEmpty();
        sender.onFrame(r1, ok(sent.get(0)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 4L);
        sender.onFrame(r1, ok(sent.get(2)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 6L);
        assertThat(sender.inFlightBatches()).isZero();
    }

    @Test
    void reportsRecordsWaitingInOpenBatchesAndBehindTheWindowAsBacklog() {
        BatchDecision oneInFlight = new BatchDecision(2, 1 << 20, Duration.ofSeconds(60), 1, 64L << 20);
        long[] backlog = new long[2];
        BatchPolicy recording = new BatchPolicy() {
            @Override
            public void onBacklog(long records, long bytes, long nowNanos) {
                backlog[0] = records;
                backlog[1] = bytes;
            }

            @Override
            public BatchDecision decision(long nowNanos) {
                return oneInFlight;
            }
        };
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 30), List.of(r1, r2), recording, now::get,
                UnpooledByteBufAllocator.DEFAULT, metrics());
        sender.assign(List.of(p0));
        for (long offset = 0; offset < 7; offset++) {
            sender.append(p0, record(offset));
        }
        sender.tick();
        // one batch of 2 on the wire, two sealed batches (4 records) waiting for the window, 1 open record
        assertThat(allSent()).hasSize(1);
        assertThat(backlog[0]).isEqualTo(5);
        assertThat(backlog[1]).isPositive();

        sender.onFrame(r1, ok(allSent().get(0)));
        sender.tick();
        assertThat(allSent()).hasSize(2);
        assertThat(backlog[0]).as("the next batch left, one waits, 1 open record").isEqualTo(3);
    }

    @Test
    void aPartitionWithBatchesUnansweredFillsItsOpenBatchPastTheLingerWhileTheWindowIsClosed() {
        TopicPartition p1 = new TopicPartition("orders", 1);
        senderWithAWindowOfOneBatch(3, p0, p1);
        sender.append(p0, record(0));
        now.addAndGet(Duration.ofMillis(25).toNanos());
        sender.tick();
        sender.append(p0, record(1));
        now.addAndGet(Duration.ofMillis(25).toNanos());
        sender.tick();
        assertThat(r1.sent).as("a window of one batch: the second waits").hasSize(1);

        for (long offset = 2; offset < 6; offset++) {
            sender.append(p0, record(offset));
            now.addAndGet(Duration.ofMillis(25).toNanos());
            sender.tick();
        }
        sender.append(p1, record(0));
        now.addAndGet(Duration.ofMillis(25).toNanos());
        sender.tick();
        assertThat(r1.sent).as("p1 has nothing unanswered: its batch seals by its linger and passes the closed"
                + " window").hasSize(2);
        assertThat(r1.sent.get(1).header().partition()).isEqualTo(1);

        sender.onFrame(r1, ok(r1.sent.get(0)));
        sender.onFrame(r1, ok(r1.sent.get(1)));
        sender.tick();
        sender.onFrame(r1, ok(r1.sent.get(2)));
        sender.tick();
        sender.onFrame(r1, ok(r1.sent.get(3)));
        sender.tick();
        sender.onFrame(r1, ok(r1.sent.get(4)));
        sender.tick();
        assertThat(r1.sent).as("p0's records of four lingers behind the closed window left in batches of the fixed"
                + " cap (3), not one per linger").extracting(f -> f.header().partition() + ":" + f.header().recordCount())
                .containsExactly("0:1", "1:1", "0:1", "0:3", "0:1");
        assertThat(sender.committableOffsets(List.of(p0, p1))).containsEntry(p0, 6L).containsEntry(p1, 1L);
    }

    @Test
    void tellsThePolicyHowManyPartitionsRecordsArrivedOnWithinTheLastSecond() {
        BatchDecision caps = new BatchDecision(100, 1 << 20, Duration.ofSeconds(60), 100, 64L << 20);
        List<Integer> streams = new ArrayList<>();
        BatchPolicy policy = new BatchPolicy() {
            @Override
            public void onActiveStreams(int partitions, long nowNanos) {
                streams.add(partitions);
            }

            @Override
            public BatchDecision decision(long nowNanos) {
                return caps;
            }
        };
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 30), List.of(r1, r2), policy, now::get,
                UnpooledByteBufAllocator.DEFAULT, metrics());
        TopicPartition p1 = new TopicPartition("orders", 1);
        TopicPartition p2 = new TopicPartition("orders", 2);
        sender.assign(List.of(p0, p1, p2));

        sender.appendAll(List.of(new IncomingRecord(p0, record(0)),
                new IncomingRecord(p0, record(1)), new IncomingRecord(p1, record(0))));
        now.addAndGet(500_000_000L);
        sender.appendAll(List.of(new IncomingRecord(p2, record(0))));
        now.addAndGet(OpenBatches.ACTIVE_STREAM_NANOS);
        sender.appendAll(List.of(new IncomingRecord(p2, record(1))));
        sender.revoke(List.of(p2));
        now.addAndGet(1);
        sender.appendAll(List.of(new IncomingRecord(p0, record(2))));

        assertThat(streams).as("p0 and p1; then p2 too; then p0 and p1 are quiet for a second; p2 revoked")
                .containsExactly(2, 3, 1, 1);
    }

    @Test
    void spreadsBatchesOverReadyRelays() {
        sender(1, 1 << 30);
        for (long offset = 0; offset < 4; offset++) {
            sender.append(p0, record(offset));
        }
        assertThat(r1.sent).hasSize(2);
        assertThat(r2.sent).hasSize(2);
    }

    @Test
    void sendsOnlyToThePreferredRelayWhileItIsReadyAndFallsBackWhileItIsNot() {
        r2.preferred = false; // relays.prefer.local: r1 on the worker's host, r2 elsewhere
        sender(1, 1 << 30);
        for (long offset = 0; offset < 4; offset++) {
            sender.append(p0, record(offset));
        }
        assertThat(r1.sent).hasSize(4);
        assertThat(r2.sent).isEmpty();

        r1.ready = false;
        sender.onRelayLost(r1);
        sender.tick();
        sender.append(p0, record(4));
        List<Long> heldByR1 = r1.sent.stream().map(b -> b.header().batchId()).toList();
        assertThat(r2.sent).as("the batches r1 held are re-sent on r2, and the new one goes there too").hasSize(5)
                .extracting(b -> b.header().batchId()).containsAll(heldByR1);

        r1.ready = true;
        int onR1 = r1.sent.size();
        sender.append(p0, record(5));
        assertThat(r1.sent).as("back on the local relay once it is ready again").hasSize(onR1 + 1);
        assertThat(r2.sent).hasSize(5);
    }

    @Test
    void lingerClosesAPartialBatch() {
        sender(100, 1 << 30);
        sender.append(p0, record(0));
        sender.tick();
        assertThat(allSent()).isEmpty();
        now.addAndGet(Duration.ofMillis(25).toNanos());
        sender.tick();
        assertThat(allSent()).hasSize(1);
    }

    @Test
    void retriableNackIsResentOnAnotherRelayAfterTheBackoff() {
        sender(1, 1 << 30);
        sender.append(p0, record(0));
        BatchFrame first = r1.sent.get(0);
        sender.onFrame(r1, AckFrame.nack(first.header(), AckReason.NO_SUBSCRIBER, "nobody"));
        sender.tick();
        assertThat(allSent()).hasSize(1);
        now.addAndGet(Duration.ofMillis(200).toNanos());
        sender.tick();
        assertThat(r2.sent).hasSize(1);
        assertThat(r2.sent.get(0).header().batchId()).isEqualTo(first.header().batchId());
        sender.onFrame(r2, ok(r2.sent.get(0)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 1L);
    }

    @Test
    void aBatchWaitingForItsRetryIsSentBeforeItsSuccessors() {
        sender(1, 1 << 30);
        sender.append(p0, record(0));
        BatchFrame first = r1.sent.get(0);
        sender.onFrame(r1, AckFrame.nack(first.header(), AckReason.OVERLOADED, "full"));
        sender.append(p0, record(1));
        sender.append(p0, record(2));
        assertThat(allSent()).as("successors wait while their predecessor waits for its retry").hasSize(1);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        sender.tick();
        assertThat(allSent()).extracting(f -> f.header().prevOffset()).containsExactly(-1L, -1L, 0L, 1L);
    }

    @Test
    void aRefusedPredecessorPassesAWindowFullOfSuccessorsThatWaitForIt() {
        TopicPartition p1 = new TopicPartition("orders", 1);
        BatchDecision caps = new BatchDecision(1, 1 << 20, Duration.ofMillis(20), 2, 64L << 20);
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 30), List.of(r1), new FixedBatchPolicy(caps),
                now::get, UnpooledByteBufAllocator.DEFAULT,
                metrics());
        sender.assign(List.of(p0, p1));
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        assertThat(r1.sent).as("a window of two batches").hasSize(2);
        BatchFrame refused = r1.sent.get(0);
        // the ingress refuses the first (its routes are at their in-flight cap); the second reached
        // the destination, which holds it until its predecessor arrives
        sender.onFrame(r1, AckFrame.nack(refused.header(), AckReason.NEXT_HOP_UNREACHABLE, "no route up"));
        sender.append(p1, record(0));
        sender.append(p1, record(1));
        assertThat(r1.sent).as("p1's first batch took the free slot; its second waits").hasSize(3);

        now.addAndGet(Duration.ofMillis(200).toNanos());
        sender.tick();
        assertThat(r1.sent).as("the refused batch passes the full window: the destination waits for it")
                .hasSize(4);
        assertThat(r1.sent.get(3).header().batchId()).isEqualTo(refused.header().batchId());
        sender.tick();
        assertThat(r1.sent).as("successors still respect the window").hasSize(4);
    }

    @Test
    void aClosedWindowLetsEachPartitionsOldestBatchThroughAndTheQueueLeavesInTheOrderItWasSealed() {
        TopicPartition p1 = new TopicPartition("orders", 1);
        TopicPartition p2 = new TopicPartition("orders", 2);
        senderWithAWindowOfOneBatch(p0, p1, p2);
        for (TopicPartition tp : List.of(p0, p1, p2)) {
            sender.append(tp, record(0));
            sender.append(tp, record(1));
        }
        assertThat(r1.sent).as("a window of one batch: each partition's first passes it, the seconds wait")
                .extracting(f -> f.header().partition() + "@" + f.header().firstOffset())
                .containsExactly("0@0", "1@0", "2@0");
        sender.tick();
        assertThat(r1.sent).as("nothing a partition waits for is queued").hasSize(3);

        sender.onFrame(r1, ok(r1.sent.get(1)));
        sender.tick();
        assertThat(r1.sent).as("p1's next batch is its oldest now: it passes the window still closed by p0 and p2")
                .hasSize(4);
        assertThat(r1.sent.get(3).header().partition()).isEqualTo(1);
        assertThat(r1.sent.get(3).header().firstOffset()).isEqualTo(1);
        sender.tick();
        assertThat(r1.sent).hasSize(4);

        sender.onFrame(r1, ok(r1.sent.get(0)));
        sender.onFrame(r1, ok(r1.sent.get(2)));
        sender.onFrame(r1, ok(r1.sent.get(3)));
        assertThat(sender.committableOffsets(List.of(p0, p1, p2))).containsEntry(p0, 1L).containsEntry(p1, 2L)
                .containsEntry(p2, 1L);
        sender.tick();
        assertThat(r1.sent.subList(4, r1.sent.size())).as("the queue leaves in the order it was sealed")
                .extracting(f -> f.header().partition() + "@" + f.header().firstOffset())
                .containsExactly("0@1", "2@1");
        sender.onFrame(r1, ok(r1.sent.get(4)));
        sender.onFrame(r1, ok(r1.sent.get(5)));
        assertThat(sender.committableOffsets(List.of(p0, p1, p2))).containsEntry(p0, 2L).containsEntry(p2, 2L);
        assertThat(sender.inFlightBatches()).isZero();
    }

    private ReplicationSender senderWithAWindowOfOneBatch(TopicPartition... partitions) {
        return senderWithAWindowOfOneBatch(1, partitions);
    }

    /**
     * Fixed caps of {@code maxRecords} records and 20 ms linger, a window of one batch, relay r1 only,
     * frames of one partition: these tests follow each batch through the window, every one in a BATCH
     * frame ({@code ReplicationSenderFramesTest} groups them).
     */
    private ReplicationSender senderWithAWindowOfOneBatch(int maxRecords, TopicPartition... partitions) {
        BatchDecision caps = new BatchDecision(maxRecords, 1 << 20, Duration.ofMillis(20), 1, 64L << 20);
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 30).framingAtMost(1), List.of(r1),
                new FixedBatchPolicy(caps), now::get, UnpooledByteBufAllocator.DEFAULT, metrics());
        sender.assign(List.of(partitions));
        return sender;
    }

    private static List<String> partitionsAndOffsets(List<BatchFrame> frames) {
        return frames.stream().map(f -> f.header().partition() + "@" + f.header().firstOffset()).toList();
    }

    @Test
    void batchesWaitingForTheWindowOfARevokedPartitionAreForgottenAndNeverSent() {
        TopicPartition p1 = new TopicPartition("orders", 1);
        senderWithAWindowOfOneBatch(p0, p1);
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        sender.append(p0, record(2));
        assertThat(r1.sent).as("two wait for the window").hasSize(1);

        sender.revoke(List.of(p0));
        assertThat(sender.inFlightBatches()).isZero();
        sender.append(p1, record(0));
        sender.append(p1, record(1));
        sender.tick();
        sender.onFrame(r1, ok(r1.sent.get(1)));
        sender.tick();
        assertThat(partitionsAndOffsets(r1.sent)).as("nothing of the revoked partition leaves after its revocation")
                .containsExactly("0@0", "1@0", "1@1");
    }

    @Test
    void aQueuedBatchNoRelayTookWaitsForItsRetryAndStillLeavesBeforeItsSuccessors() {
        senderWithAWindowOfOneBatch(p0);
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        sender.append(p0, record(2));
        r1.ready = false;
        sender.onFrame(r1, ok(r1.sent.get(0)));
        sender.tick();
        r1.ready = true;
        sender.tick();
        assertThat(r1.sent).as("the queue's head waits for its retry backoff, its successor behind it").hasSize(1);

        now.addAndGet(Duration.ofMillis(200).toNanos());
        sender.tick();
        sender.onFrame(r1, ok(r1.sent.get(1)));
        sender.tick();
        assertThat(partitionsAndOffsets(r1.sent)).containsExactly("0@0", "0@1", "0@2");
        sender.onFrame(r1, ok(r1.sent.get(2)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 3L);
    }

    @Test
    void aBatchRefusedForASchemaNotShippedYetShipsItsTopicsSchemasAgainAndIsRetried() {
        sender(1, 1 << 30);
        List<String> missing = new ArrayList<>();
        sender.append(p0, record(0));
        BatchFrame first = r1.sent.get(0);
        sender.sendMetadata("orders", 6, Map.of(), new MetadataInFlight.Listener() {
            @Override
            public void onMetadataAcknowledged(String topic, int partitionCount, long schemaGeneration,
                                               boolean applied) {
            }

            @Override
            public void onSchemasMissing(String topic) {
                missing.add(topic);
            }
        });
        sender.onFrame(r1, AckFrame.nack(first.header(), AckReason.WRITE_FAILED, "destination topic not ready"));
        assertThat(missing).as("another write failure").isEmpty();
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        sender.tick();
        BatchFrame again = allSent().get(1);
        sender.onFrame(r1, AckFrame.nack(again.header(), AckReason.WRITE_FAILED,
                SchemaTranslator.MISSING_PREFIX + "source schema id 3 has not arrived"));
        assertThat(missing).containsExactly("orders");
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        sender.tick();
        assertThat(allSent()).as("sent again, as any retriable refusal").hasSize(3);
    }

    @Test
    void metadataAnswersReachTheListener() {
        sender(2, 1 << 30);
        List<String> answers = new ArrayList<>();
        MetadataInFlight.Listener listener = (topic, partitions, generation, applied) -> answers.add(topic + "/"
                + partitions + "/" + applied);
        assertThat(sender.sendMetadata("orders", 6, Map.of(), listener)).isTrue();
        assertThat(sender.sendMetadata("payments", 3, Map.of(), listener)).isTrue();
        List<TopicMetadataFrame> frames = new ArrayList<>(r1.metadata);
        frames.addAll(r2.metadata);
        assertThat(frames).hasSize(2);
        TopicMetadataFrame orders = frames.stream().filter(f -> f.topic().equals("orders")).findFirst().orElseThrow();
        TopicMetadataFrame payments = frames.stream().filter(f -> f.topic().equals("payments")).findFirst().orElseThrow();
        sender.onFrame(r1, AckFrame.nack(orders, AckReason.NO_SUBSCRIBER, "nobody"));
        sender.onFrame(r1, AckFrame.ok(payments));
        sender.onFrame(r1, AckFrame.ok(payments));
        assertThat(answers).containsExactly("orders/6/false", "payments/3/true");
    }

    @Test
    void lostRelayConnectionResendsAtOnceAndTimeoutsResendLater() {
        sender(1, 1 << 30);
        sender.append(p0, record(0));
        r1.ready = false;
        sender.onRelayLost(r1);
        sender.tick();
        assertThat(r2.sent).hasSize(1);
        // no ack within the timeout: sent again
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        r1.ready = true;
        sender.tick();
        assertThat(allSent()).hasSize(3);
    }

    @Test
    void nonRetriableNackFailsTheTask() {
        sender(1, 1 << 30);
        sender.append(p0, record(0));
        sender.onFrame(r1, AckFrame.nack(r1.sent.get(0).header(), AckReason.NOT_AUTHORIZED, "topic not allowed"));
        assertThat(sender.fatalError()).hasMessageContaining("NOT_AUTHORIZED")
                .as("names the partition and the source offsets").hasMessageContaining(
                        "of " + p0.topic() + "-" + p0.partition() + " (source offsets 0..0, 1 records)")
                .as("the destination's reason").hasMessageContaining("topic not allowed")
                .as("how to skip such batches").hasMessageContaining("errors.tolerance=all");
        assertThat(sender.nextRefused()).as("nothing is skipped unasked").isNull();
        assertThatThrownBy(() -> sender.append(p0, record(1))).hasMessageContaining("refused");
    }

    // ---- errors.tolerance=all: refused batches are skipped -------------------------------------

    private ReplicationSender skippingSender(SenderIntegrity integrity) {
        BatchDecision caps = new BatchDecision(2, 1 << 20, Duration.ofMillis(20), 100, 64L << 20);
        sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1L << 30, integrity, Duration.ZERO, true),
                List.of(r1), new FixedBatchPolicy(caps), now::get, UnpooledByteBufAllocator.DEFAULT, metrics());
        sender.assign(List.of(p0));
        return sender;
    }

    @Test
    void underErrorsToleranceAllARefusedBatchGivesWayToASkipMarkerOnWhichTheLaterBatchesChain() {
        skippingSender(SenderIntegrity.OFF);
        for (long offset = 0; offset < 6; offset++) {
            sender.append(p0, record(offset));
        }
        List<BatchFrame> sent = allSent();
        assertThat(sent).extracting(f -> f.header().prevOffset()).containsExactly(-1L, 1L, 3L);
        sender.onFrame(r1, AckFrame.nack(sent.get(1).header(), AckReason.NOT_AUTHORIZED, "topic not allowed"));
        assertThat(sender.fatalError()).as("the task goes on").isNull();

        now.addAndGet(Duration.ofSeconds(1).toNanos()); // past the retry backoff
        sender.tick();
        assertThat(allSent()).as("a refused batch is not sent again").hasSize(3);
        RefusedBatch batch = sender.nextRefused();
        assertThat(batch).isNotNull();
        assertThat(batch.partition()).isEqualTo(p0);
        assertThat(batch.reason()).isEqualTo(AckReason.NOT_AUTHORIZED);
        assertThat(batch.message()).isEqualTo("topic not allowed");
        assertThat(batch.batch().records()).as("read back from the frame kept for re-sends")
                .extracting(ReplicatedRecord::offset).containsExactly(2L, 3L);
        assertThat(sender.nextRefused()).as("taken once").isNull();

        sender.skip(batch);
        List<BatchFrame> afterSkip = allSent();
        assertThat(afterSkip).hasSize(4);
        BatchFrame marker = afterSkip.get(3);
        assertThat(marker.header().batchId()).isNotEqualTo(sent.get(1).header().batchId());
        assertThat(marker.header().recordCount()).isZero();
        assertThat(marker.header().prevOffset()).as("the refused batch's place in the chain").isEqualTo(1L);
        assertThat(marker.header().firstOffset()).isEqualTo(2L);
        assertThat(marker.header().lastOffset()).as("its successor's prevOffset").isEqualTo(3L)
                .isEqualTo(sent.get(2).header().prevOffset());
        var decoded = new BatchDecoder().decode(marker.encodedBatch());
        assertThat(decoded.isSkipMarker()).isTrue();
        assertThat(decoded.skipped().records()).isEqualTo(2);
        assertThat(metric("skipped-refused-batches-total")).isEqualTo(1.0);
        assertThat(metric("skipped-refused-records-total")).isEqualTo(2.0);

        sender.append(p0, record(6));
        sender.append(p0, record(7));
        assertThat(allSent().get(4).header().prevOffset()).as("the chain goes on as before").isEqualTo(5L);
        sender.onFrame(r1, ok(sent.get(0)));
        sender.onFrame(r1, ok(sent.get(2)));
        sender.onFrame(r1, ok(allSent().get(4)));
        assertThat(sender.committableOffsets(List.of(p0))).as("not past the skipped records before the marker's ack")
                .containsEntry(p0, 2L);
        sender.onFrame(r1, ok(marker));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 8L);
        assertThat(sender.inFlightBatches()).isZero();
        assertThat(sender.bufferedBytes()).isZero();
    }

    @Test
    void successorsWaitForTheSkipMarkerAndARefusedMarkerStopsTheTaskNamingBothRefusals() {
        skippingSender(SenderIntegrity.OFF);
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        BatchFrame first = allSent().get(0);
        sender.onFrame(r1, AckFrame.nack(first.header(), AckReason.MALFORMED_BATCH, "bad crc"));
        sender.append(p0, record(2));
        sender.append(p0, record(3));
        assertThat(allSent()).as("the successor waits until the marker takes the refused batch's place").hasSize(1);
        RefusedBatch refused = sender.nextRefused();
        sender.skip(refused);
        sender.tick();
        List<BatchFrame> sent = allSent(); // by batch id: the successor was made before the marker
        assertThat(sent).hasSize(3);
        assertThat(sent.get(2).header().recordCount()).as("the marker").isZero();
        assertThat(sent.get(1).header().prevOffset()).as("the successor chains on the skipped batch").isEqualTo(1L);

        sender.onFrame(r1, AckFrame.nack(sent.get(2).header(), AckReason.NOT_AUTHORIZED, "topic not allowed"));
        assertThat(sender.fatalError()).hasMessageContaining("orders-0 (source offsets 0..1, 2 records: "
                        + "MALFORMED_BATCH bad crc)").hasMessageContaining("skip marker")
                .hasMessageContaining("NOT_AUTHORIZED topic not allowed");
        assertThat(sender.nextRefused()).as("a marker is never skipped in turn").isNull();
        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();
    }

    @Test
    void aRefusedBatchOfARevokedPartitionIsNeitherReportedNorSkipped() {
        skippingSender(SenderIntegrity.OFF);
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        sender.onFrame(r1, AckFrame.nack(allSent().get(0).header(), AckReason.OBSOLETE_INCARNATION, "recreated"));
        sender.revoke(List.of(p0));
        assertThat(sender.nextRefused()).isNull();
        assertThat(sender.inFlightBatches()).isZero();
    }

    @Test
    void withAKeyOnlyTheDestinationsSignedRefusalSkipsABatch() {
        skippingSender(SenderIntegrity.of(key));
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        BatchFrame sent = allSent().get(0);
        sender.onFrame(r1, AckFrame.nack(sent.header(), AckReason.NOT_AUTHORIZED, "made up by a relay"));
        assertThat(sender.nextRefused()).as("an unsigned refusal is retried, not believed").isNull();
        sender.onFrame(r1, key.sign(AckFrame.nack(sent.header(), AckReason.NOT_AUTHORIZED, "topic not allowed")));
        RefusedBatch refused = sender.nextRefused();
        sender.skip(refused);
        BatchFrame marker = allSent().get(allSent().size() - 1);
        assertThat(key.verify(marker)).as("the marker leaves signed").isEqualTo(FrameSigner.Verdict.VALID);
    }

    // ---- end-to-end integrity ----------------------------------------------------------------

    private final FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");

    /** The destination's signed answer. */
    private AckFrame signedOk(BatchFrame frame) {
        return key.sign(AckFrame.ok(frame.header()));
    }

    private double metric(String name) {
        return kafkaMetrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void withAKeyEveryBatchAndEveryMetadataLeavesSigned() {
        sender(2, 1 << 30, SenderIntegrity.of(key));
        for (long offset = 0; offset < 6; offset++) {
            sender.append(p0, record(offset));
        }
        assertThat(sender.sendMetadata("orders", 6, Map.of("cleanup.policy", "compact"), NO_ANSWERS)).isTrue();
        assertThat(allSent()).hasSize(3).allSatisfy(frame -> assertThat(key.verify(frame))
                .isEqualTo(FrameSigner.Verdict.VALID));
        List<TopicMetadataFrame> metadata = new ArrayList<>(r1.metadata);
        metadata.addAll(r2.metadata);
        assertThat(metadata).singleElement().satisfies(frame -> assertThat(key.verify(frame))
                .isEqualTo(FrameSigner.Verdict.VALID));
    }

    @Test
    void metadataCarriesTheTopicsIdAndTheGenerationOfItsDescriptionUnderTheMac() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        org.apache.kafka.common.Uuid topicId = org.apache.kafka.common.Uuid.randomUuid();

        assertThat(sender.sendMetadata("orders", 6, Map.of(), 0, topicId, 1_700_000_000_123L, NO_ANSWERS)).isTrue();

        assertThat(r1.metadata).singleElement().satisfies(frame -> {
            assertThat(frame.topicId()).isEqualTo(topicId);
            assertThat(frame.generation()).isEqualTo(1_700_000_000_123L);
            assertThat(key.verify(frame)).isEqualTo(FrameSigner.Verdict.VALID);
        });
    }

    @Test
    void anOkWithoutTheDestinationsValidMacCommitsNothingAndTheBatchIsSentAgain() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        BatchFrame sent = allSent().get(0);

        sender.onFrame(r1, ok(sent)); // made up by a relay: no MAC
        sender.onFrame(r1, ok(sent).withMac(FrameSigner.ofSecret("a-relay-guessing-some-key-of-its-own!")
                .mac(ok(sent))));
        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();
        assertThat(sender.inFlightBatches()).isEqualTo(1);
        assertThat(metric("unverified-acks-total")).isEqualTo(2);

        now.addAndGet(Duration.ofSeconds(1).toNanos());
        sender.tick();
        List<BatchFrame> attempts = allSent();
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(1).header().batchId()).as("the same batch again").isEqualTo(sent.header().batchId());

        sender.onFrame(r2, signedOk(attempts.get(1)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 1L);
        assertThat(sender.inFlightBatches()).isZero();
    }

    @Test
    void aSignedOkThatNamesOtherOffsetsCommitsNothing() {
        sender(2, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        sender.append(p0, record(1));
        BatchFrame sent = allSent().get(0);
        AckFrame ok = AckFrame.ok(sent.header());
        AckFrame further = key.sign(new AckFrame(ok.streamId(), ok.originNodeId(), ok.batchId(), ok.status(),
                ok.reason(), ok.topic(), ok.partition(), 1_000, ""));

        sender.onFrame(r1, further);

        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();
        assertThat(metric("unverified-acks-total")).isEqualTo(1);
    }

    /**
     * A relay that moves a batch to another stream makes the destination refuse it, signed: that
     * answer is about what arrived, not about the batch sent, and must not stop the task.
     */
    @Test
    void aSignedRefusalOfABatchAlteredOnTheWayDoesNotStopTheTask() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        BatchHeader sent = allSent().get(0).header();
        BatchHeader moved = sent.withRouting(new RoutingHeader("other-stream", sent.batchId(), "node-1", "B",
                List.of(), 0));

        sender.onFrame(r1, key.sign(AckFrame.nack(moved, AckReason.NOT_AUTHORIZED, "stream other-stream is not B's")));

        assertThat(sender.fatalError()).isNull();
        assertThat(sender.inFlightBatches()).isEqualTo(1);
        assertThat(metric("unverified-acks-total")).isEqualTo(1);
    }

    @Test
    void aFinalNackWithoutTheDestinationsMacNeitherStopsTheTaskNorDropsTheBatch() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        BatchFrame sent = allSent().get(0);

        sender.onFrame(r1, AckFrame.nack(sent.header(), AckReason.OBSOLETE_INCARNATION, "made up"));
        sender.onFrame(r1, AckFrame.nack(sent.header(), AckReason.NOT_AUTHORIZED, "made up"));
        sender.onFrame(r1, AckFrame.nack(sent.header(), AckReason.MALFORMED_BATCH, "ingress: BAD_CRC"));

        assertThat(sender.fatalError()).isNull();
        assertThat(sender.inFlightBatches()).isEqualTo(1);
        assertThat(metric("unverified-acks-total")).isEqualTo(3);
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        sender.tick();
        assertThat(allSent()).hasSize(2).extracting(f -> f.header().batchId()).containsOnly(sent.header().batchId());
        sender.append(p0, record(1)); // the task goes on
    }

    @Test
    void theDestinationsSignedFinalNackStillStopsTheTask() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        sender.onFrame(r1, key.sign(AckFrame.nack(allSent().get(0).header(), AckReason.NOT_AUTHORIZED,
                "integrity: the batch carries no MAC")));
        assertThat(sender.fatalError()).hasMessageContaining("NOT_AUTHORIZED").hasMessageContaining("integrity");
        assertThat(metric("unverified-acks-total")).isZero();
    }

    @Test
    void relaysUnsignedRetriableNacksAndReceiptsStillCount() {
        sender(1, 1 << 30, SenderIntegrity.of(key));
        sender.append(p0, record(0));
        BatchFrame first = r1.sent.get(0);
        sender.onFrame(r1, AckFrame.received(first.header()));
        sender.onFrame(r1, AckFrame.nack(first.header(), AckReason.NO_SUBSCRIBER, "nobody"));
        assertThat(metric("unverified-acks-total")).isZero();
        assertThat(metric("nacks-total")).isEqualTo(1);
        now.addAndGet(Duration.ofMillis(200).toNanos());
        sender.tick();
        assertThat(r2.sent).as("re-sent after the backoff, as without a key").hasSize(1);
    }

    @Test
    void metadataCountsAsAppliedOnlyOnTheDestinationsSignedOk() {
        sender(2, 1 << 30, SenderIntegrity.of(key));
        List<String> answers = new ArrayList<>();
        MetadataInFlight.Listener listener = (topic, partitions, generation, applied) -> answers.add(topic + "/"
                + applied);
        assertThat(sender.sendMetadata("orders", 6, Map.of(), listener)).isTrue();
        TopicMetadataFrame sent = r1.metadata.isEmpty() ? r2.metadata.get(0) : r1.metadata.get(0);

        sender.onFrame(r1, AckFrame.ok(sent));
        sender.onFrame(r1, key.sign(AckFrame.ok(sent)));

        assertThat(answers).containsExactly("orders/false", "orders/true");
        assertThat(metric("unverified-acks-total")).isEqualTo(1);
    }

    @Test
    void memoryBoundTurnsIntoPauseAndResume() {
        sender(1, 1000);
        for (long offset = 0; offset < 20; offset++) {
            sender.append(p0, record(offset));
        }
        assertThat(sender.shouldPause()).isTrue();
        allSent().forEach(frame -> sender.onFrame(r1, ok(frame)));
        assertThat(sender.canResume()).isTrue();
        assertThat(sender.bufferedBytes()).isZero();
    }

    @Test
    void revokedPartitionsForgetTheirBatchesAndLateAcks() {
        sender(1, 1 << 30);
        sender.append(p0, record(0));
        BatchFrame frame = r1.sent.get(0);
        sender.revoke(List.of(p0));
        assertThat(sender.inFlightBatches()).isZero();
        sender.onFrame(r1, ok(frame));
        assertThat(sender.committableOffsets(List.of(p0))).isEmpty();
    }

    @Test
    void aNewIncarnationDropsTheOldOnesUnacknowledgedBatchesAndStartsANewChain() {
        Uuid old = Uuid.randomUuid();
        Uuid recreated = Uuid.randomUuid();
        sender(1, 1 << 30);
        assertThat(sender.incarnation(p0, old)).as("a first id drops nothing").isZero();
        sender.append(p0, record(998));
        sender.append(p0, record(999));
        List<BatchFrame> oldBatches = allSent();
        assertThat(oldBatches).hasSize(2);
        assertThat(oldBatches).allSatisfy(f -> assertThat(new BatchDecoder().decode(f.encodedBatch()).topicId())
                .isEqualTo(old));
        sender.onFrame(r1, ok(oldBatches.get(0)));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 999L);

        assertThat(sender.incarnation(p0, recreated)).as("the unacknowledged old record").isEqualTo(1);
        assertThat(sender.incarnation(p0)).isEqualTo(recreated);
        assertThat(sender.inFlightBatches()).isZero();
        assertThat(sender.committableOffsets(List.of(p0))).as("no commit position carries over").isEmpty();
        sender.onFrame(r1, ok(oldBatches.get(1)));
        assertThat(sender.committableOffsets(List.of(p0))).as("a late answer for the old topic").isEmpty();

        r1.sent.clear();
        r2.sent.clear();
        sender.append(p0, record(0));
        BatchFrame first = allSent().get(0);
        assertThat(first.header().prevOffset()).as("a new chain").isEqualTo(-1L);
        assertThat(new BatchDecoder().decode(first.encodedBatch()).topicId()).isEqualTo(recreated);
        sender.onFrame(r1, ok(first));
        assertThat(sender.committableOffsets(List.of(p0))).containsEntry(p0, 1L);
        assertThat(sender.incarnation(p0, recreated)).as("the same id again changes nothing").isZero();
    }
}
