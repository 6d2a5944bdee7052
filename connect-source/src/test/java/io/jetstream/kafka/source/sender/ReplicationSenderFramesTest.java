package io.jetstream.kafka.source.sender;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.source.SenderMetricsFixture;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sender's BATCHES frames: the batches one pass sends to a relay leave together, and the answer
 * to a frame is the answer of each batch whose last send it was. {@link ReplicationSenderTest} follows
 * single batches (most of it with frames of one partition).
 */
class ReplicationSenderFramesTest {

    private static final Duration LINGER = Duration.ofMillis(20);
    private static final Duration RETRY_BACKOFF = Duration.ofMillis(200);
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final FakeRelay r1 = new FakeRelay("r1");
    private final FakeRelay r2 = new FakeRelay("r2");
    private final Metrics kafkaMetrics = new Metrics();
    private final FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");
    private final List<TopicPartition> partitions = List.of(new TopicPartition("orders", 0),
            new TopicPartition("orders", 1), new TopicPartition("orders", 2), new TopicPartition("orders", 3));
    /** What the policy heard last of the backlog (records waiting at the sender), -1 before. */
    private long backlogRecords = -1;
    /** The receipts the policy heard of: records of each batch. */
    private final List<Integer> receipts = new ArrayList<>();
    private ReplicationSender sender;

    @AfterEach
    void release() {
        if (sender != null) {
            sender.close();
        }
        r1.releaseAll();
        r2.releaseAll();
        kafkaMetrics.close();
    }

    /** Frames of up to 1,024 partitions, integrity off, refused batches stop the task. */
    private static SenderSettings settings() {
        return settings(SenderIntegrity.OFF);
    }

    private static SenderSettings settings(SenderIntegrity integrity) {
        return new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4, ACK_TIMEOUT, RETRY_BACKOFF, 1L << 30,
                integrity, Duration.ZERO, false);
    }

    /** Batches of up to {@code maxRecords} records, 20 ms linger, a window of 100 batches; all partitions assigned. */
    private ReplicationSender sender(SenderSettings settings, int maxRecords, FakeRelay... relays) {
        BatchDecision caps = new BatchDecision(maxRecords, 1 << 20, LINGER, 100, 64L << 20);
        BatchPolicy recording = new BatchPolicy() {
            @Override
            public BatchDecision decision(long nowNanos) {
                return caps;
            }

            @Override
            public void onBacklog(long records, long bytes, long nowNanos) {
                backlogRecords = records;
            }

            @Override
            public void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
                receipts.add(records);
            }
        };
        sender = new ReplicationSender(settings, List.of(relays), recording, now::get, UnpooledByteBufAllocator.DEFAULT,
                SenderMetricsFixture.events(kafkaMetrics));
        sender.assign(partitions);
        return sender;
    }

    private ReplicationSender sender(SenderSettings settings) {
        return sender(settings, 100, r1);
    }

    private static ReplicatedRecord record(long offset) {
        return new ReplicatedRecord(offset, 1000 + offset, ("k" + offset).getBytes(), new byte[64]);
    }

    /** A record at {@code offset} on each partition, one put each; then a tick after the linger seals them all. */
    private void oneRecordOnEachThenTheLinger(long offset) {
        for (TopicPartition tp : partitions) {
            sender.append(tp, record(offset));
        }
        now.addAndGet(LINGER.toNanos() + 1);
        sender.tick();
    }

    private static List<String> sections(BatchesFrame frame) {
        return frame.sections().stream().map(s -> s.partition() + "@" + s.firstOffset() + ".." + s.lastOffset())
                .toList();
    }

    private static List<String> batches(List<BatchFrame> frames) {
        return frames.stream().map(f -> f.header().partition() + "@" + f.header().firstOffset() + ".."
                + f.header().lastOffset()).toList();
    }

    private Map<TopicPartition, Long> committable() {
        return sender.committableOffsets(partitions);
    }

    private double metric(String name) {
        return kafkaMetrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void batchesOfSeveralPartitionsSealedInOneTickLeaveAsOneBatchesFrameWhoseSectionsAreThoseBatches() {
        sender(settings());

        oneRecordOnEachThenTheLinger(0);

        assertThat(r1.sent).as("no BATCH frame").isEmpty();
        assertThat(r1.grouped).hasSize(1);
        BatchesFrame frame = r1.grouped.get(0);
        assertThat(sections(frame)).containsExactly("0@0..0", "1@0..0", "2@0..0", "3@0..0");
        assertThat(frame.routing().isRouted()).isFalse();
        assertThat(frame.routing().streamId()).isEqualTo("demo");
        assertThat(frame.routing().destination()).isEqualTo("B");
        for (int i = 0; i < frame.sectionCount(); i++) {
            BatchFrame section = frame.section(i);
            try {
                assertThat(new BatchDecoder().decode(section.encodedBatch()).records())
                        .as("each section is the partition's batch, payload and all")
                        .extracting(ReplicatedRecord::offset).containsExactly(0L);
            } finally {
                section.release();
            }
        }
        assertThat(sender.inFlightBatches()).as("the window keeps each batch").isEqualTo(4);
        assertThat(metric("batches-sent-total")).as("batches are counted as batches").isEqualTo(4);
        assertThat(committable()).isEmpty();
    }

    @Test
    void theFramesOkAcknowledgesEveryBatchInIt() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);
        oneRecordOnEachThenTheLinger(1);
        assertThat(r1.grouped).hasSize(2);

        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(1)));
        assertThat(committable()).as("the first frame's batches are not acknowledged yet").isEmpty();
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));

        assertThat(committable()).containsOnly(Map.entry(partitions.get(0), 2L), Map.entry(partitions.get(1), 2L),
                Map.entry(partitions.get(2), 2L), Map.entry(partitions.get(3), 2L));
        assertThat(sender.inFlightBatches()).isZero();
        assertThat(metric("records-acked-total")).isEqualTo(8);
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));
        assertThat(metric("records-acked-total")).as("a late duplicate changes nothing").isEqualTo(8);
    }

    @Test
    void aRetriableNackResendsEveryBatchOfTheFrameInANewFrame() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);
        BatchesFrame first = r1.grouped.get(0);

        sender.onFrame(r1, AckFrame.nack(first, AckReason.NO_SUBSCRIBER, "nobody"));
        sender.tick();
        assertThat(r1.grouped).as("not before the backoff").hasSize(1);
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        assertThat(r1.grouped).hasSize(2);
        BatchesFrame again = r1.grouped.get(1);
        assertThat(again.frameId()).isNotEqualTo(first.frameId());
        assertThat(sections(again)).isEqualTo(sections(first));
        assertThat(r1.sent).isEmpty();
        assertThat(metric("nacks-total")).as("one answer").isEqualTo(1);
        assertThat(metric("records-resent-total")).isEqualTo(4);
        sender.onFrame(r1, AckFrame.ok(again));
        assertThat(committable()).hasSize(4).allSatisfy((tp, offset) -> assertThat(offset).isEqualTo(1L));
    }

    @Test
    void aMixedSharesNackMakesTheResendsAndLaterFramesGroupByTheShareOwner() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);

        sender.onFrame(r1, AckFrame.mixedShares(r1.grouped.get(0), 2, "two subscribers"));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        List<BatchesFrame> regrouped = r1.grouped.subList(1, r1.grouped.size());
        assertThat(regrouped).as("one frame per owner: each owns two of the four partitions").hasSize(2);
        assertOneOwnerEachAndAllPartitions(regrouped, 0);
        regrouped.forEach(frame -> sender.onFrame(r1, AckFrame.ok(frame)));
        assertThat(committable()).hasSize(4).allSatisfy((tp, offset) -> assertThat(offset).isEqualTo(1L));

        oneRecordOnEachThenTheLinger(1);
        assertThat(r1.grouped).as("batches sealed later group so too").hasSize(5);
        assertOneOwnerEachAndAllPartitions(r1.grouped.subList(3, 5), 1);
    }

    private void assertOneOwnerEachAndAllPartitions(List<BatchesFrame> frames, long offset) {
        Set<Integer> owners = new HashSet<>();
        List<String> all = new ArrayList<>();
        for (BatchesFrame frame : frames) {
            Set<Integer> ownersInFrame = new HashSet<>();
            frame.sections().forEach(s -> ownersInFrame.add(Shares.owner(s.topic(), s.partition(), 2)));
            assertThat(ownersInFrame).as("one owner per frame").hasSize(1);
            owners.addAll(ownersInFrame);
            all.addAll(sections(frame));
        }
        assertThat(owners).as("each frame another owner").hasSize(frames.size());
        assertThat(all).containsExactlyInAnyOrder("0@" + offset + ".." + offset, "1@" + offset + ".." + offset,
                "2@" + offset + ".." + offset, "3@" + offset + ".." + offset);
    }

    @Test
    void aShareCountNoRelayCouldAnnounceLeavesTheGroupingAsItIs() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);

        sender.onFrame(r1, AckFrame.mixedShares(r1.grouped.get(0), 0, "made up"));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        assertThat(r1.grouped).as("re-sent, in one frame as before").hasSize(2);
        assertThat(r1.grouped.get(1).sectionCount()).isEqualTo(4);
    }

    @Test
    void aRefusalOfTheFrameSendsEachOfItsBatchesAloneFromThenOnAndTheirOwnAnswersDecide() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);

        sender.onFrame(r1, AckFrame.nack(r1.grouped.get(0), AckReason.NOT_AUTHORIZED, "a topic is not allowed"));
        assertThat(sender.fatalError()).as("the answer names no batch: nothing stops yet").isNull();
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        assertThat(r1.grouped).hasSize(1);
        assertThat(batches(r1.sent)).as("each alone, soon").containsExactly("0@0..0", "1@0..0", "2@0..0", "3@0..0");
        for (BatchFrame alone : List.copyOf(r1.sent)) {
            sender.onFrame(r1, AckFrame.nack(alone.header(), AckReason.OVERLOADED, "busy"));
        }
        now.addAndGet(Duration.ofSeconds(1).toNanos()); // past the doubled backoff of a third attempt
        sender.tick();
        assertThat(r1.grouped).as("still alone on later sends").hasSize(1);
        assertThat(batches(r1.sent.subList(4, r1.sent.size())))
                .containsExactly("0@0..0", "1@0..0", "2@0..0", "3@0..0");

        sender.onFrame(r1, AckFrame.ok(r1.sent.get(4).header()));
        sender.onFrame(r1, AckFrame.nack(r1.sent.get(5).header(), AckReason.NOT_AUTHORIZED, "orders-1 is not"));
        sender.onFrame(r1, AckFrame.ok(r1.sent.get(6).header()));
        sender.onFrame(r1, AckFrame.ok(r1.sent.get(7).header()));
        assertThat(sender.fatalError()).as("the batch refused on its own stops the task, as always")
                .hasMessageContaining("orders-1 (source offsets 0..0, 1 records)").hasMessageContaining("NOT_AUTHORIZED");
        assertThat(committable()).containsOnlyKeys(partitions.get(0), partitions.get(2), partitions.get(3));
    }

    @Test
    void aStaleAnswerToAnEarlierFrameLeavesTheBatchesResentInANewerOneAlone() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);
        BatchesFrame earlier = r1.grouped.get(0);
        now.addAndGet(ACK_TIMEOUT.toNanos());
        sender.tick();
        assertThat(r1.grouped).as("unanswered within the timeout: re-sent").hasSize(2);
        BatchesFrame newer = r1.grouped.get(1);
        assertThat(metric("ack-timeouts-total")).as("counted per batch").isEqualTo(4);

        sender.onFrame(r1, AckFrame.ok(earlier));
        assertThat(committable()).isEmpty();
        assertThat(sender.inFlightBatches()).isEqualTo(4);
        sender.onFrame(r1, AckFrame.nack(earlier, AckReason.NO_SUBSCRIBER, "nobody"));
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        sender.tick();
        assertThat(r1.grouped).as("a stale NACK re-sends nothing").hasSize(2);

        sender.onFrame(r1, AckFrame.ok(newer));
        assertThat(committable()).hasSize(4);
        assertThat(sender.inFlightBatches()).isZero();
    }

    @Test
    void aStaleAnswerToAFrameAppliesOnlyToItsBatchesNotSentAgainSince() {
        sender(settings());
        TopicPartition p0 = partitions.get(0);
        TopicPartition p1 = partitions.get(1);
        sender.append(p0, record(0));
        now.addAndGet(LINGER.toNanos() + 1);
        sender.tick();
        sender.onFrame(r1, AckFrame.nack(r1.sent.get(0).header(), AckReason.OVERLOADED, "busy"));
        sender.append(p1, record(0));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();
        BatchesFrame frame = r1.grouped.get(0);
        assertThat(sections(frame)).as("p0's retry and p1's first send").containsExactly("0@0..0", "1@0..0");

        // p0's third attempt backs off twice as long as p1's second: p1 leaves alone first
        sender.onFrame(r1, AckFrame.nack(frame, AckReason.NO_SUBSCRIBER, "nobody"));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();
        assertThat(batches(r1.sent)).containsExactly("0@0..0", "1@0..0");

        sender.onFrame(r1, AckFrame.ok(frame));
        assertThat(committable()).as("p0 was last sent in the frame; p1 was sent again since")
                .containsOnly(Map.entry(p0, 1L));
        assertThat(sender.inFlightBatches()).isEqualTo(1);
        sender.onFrame(r1, AckFrame.ok(r1.sent.get(1).header()));
        assertThat(committable()).containsOnly(Map.entry(p0, 1L), Map.entry(p1, 1L));
    }

    @Test
    void aSkipMarkerLeavesInItsBatchFrameEvenBesideBatchesLeavingTogether() {
        sender(new SenderSettings("demo", "node-1", "B", CompressionCodec.LZ4, ACK_TIMEOUT, RETRY_BACKOFF, 1L << 30,
                SenderIntegrity.OFF, Duration.ZERO, true));
        sender.append(partitions.get(0), record(0));
        now.addAndGet(LINGER.toNanos() + 1);
        sender.tick();
        sender.onFrame(r1, AckFrame.nack(r1.sent.get(0).header(), AckReason.NOT_AUTHORIZED, "not allowed"));
        sender.skip(sender.nextRefused());
        BatchFrame marker = r1.sent.get(1);
        assertThat(marker.header().recordCount()).isZero();
        sender.onFrame(r1, AckFrame.nack(marker.header(), AckReason.OVERLOADED, "busy"));

        sender.append(partitions.get(1), record(0));
        sender.append(partitions.get(2), record(0));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick(); // the marker's retry and two lingered batches in one pass

        assertThat(r1.grouped).singleElement().satisfies(f -> assertThat(sections(f)).containsExactly("1@0..0",
                "2@0..0"));
        assertThat(r1.sent).hasSize(3);
        assertThat(r1.sent.get(2).header().batchId()).as("the marker again, alone").isEqualTo(
                marker.header().batchId());
        sender.onFrame(r1, AckFrame.ok(marker.header()));
        assertThat(committable()).containsOnly(Map.entry(partitions.get(0), 1L));
    }

    @Test
    void withFrameMaxPartitionsOfOneEveryBatchLeavesInABatchFrameOfItsOwn() {
        sender(settings().framingAtMost(1));
        oneRecordOnEachThenTheLinger(0);

        assertThat(r1.grouped).isEmpty();
        assertThat(batches(r1.sent)).containsExactly("0@0..0", "1@0..0", "2@0..0", "3@0..0");
        r1.sent.forEach(batch -> sender.onFrame(r1, AckFrame.ok(batch.header())));
        assertThat(committable()).hasSize(4);
    }

    @Test
    void aLoneBatchLeavesInItsBatchFrame() {
        sender(settings());
        sender.append(partitions.get(2), record(0));
        now.addAndGet(LINGER.toNanos() + 1);
        sender.tick();

        assertThat(r1.grouped).isEmpty();
        assertThat(batches(r1.sent)).containsExactly("2@0..0");
        sender.onFrame(r1, AckFrame.ok(r1.sent.get(0).header()));
        assertThat(committable()).containsOnly(Map.entry(partitions.get(2), 1L));
    }

    @Test
    void aFrameTakesAtMostFrameMaxPartitionsAndAGroupOfOneLeavesAsABatch() {
        sender(settings().framingAtMost(3));
        oneRecordOnEachThenTheLinger(0);

        assertThat(r1.grouped).singleElement().satisfies(frame -> assertThat(sections(frame))
                .containsExactly("0@0..0", "1@0..0", "2@0..0"));
        assertThat(batches(r1.sent)).containsExactly("3@0..0");
    }

    @Test
    void aFramesBodyStaysWithinTheRelaysPayloadLimit() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);
        int fourSections = r1.grouped.get(0).body().readableBytes();
        int limit = fourSections / 2 + fourSections / 8; // room for two sections, not three
        r1.maxPayloadBytes = limit;

        oneRecordOnEachThenTheLinger(1);

        List<BatchesFrame> limited = r1.grouped.subList(1, r1.grouped.size());
        assertThat(limited).hasSize(2).allSatisfy(frame -> {
            assertThat(frame.sectionCount()).isEqualTo(2);
            assertThat(frame.body().readableBytes()).isLessThanOrEqualTo(limit);
        });
    }

    @Test
    void twoBatchesOfAPartitionInOnePassLeaveInConsecutiveFramesInOffsetOrder() {
        sender(settings(), 1, r1);
        sender.appendAll(List.of(new IncomingRecord(partitions.get(0), record(0)),
                new IncomingRecord(partitions.get(0), record(1)), new IncomingRecord(partitions.get(1), record(0)),
                new IncomingRecord(partitions.get(1), record(1))));

        assertThat(r1.grouped).hasSize(2);
        assertThat(sections(r1.grouped.get(0))).containsExactly("0@0..0", "1@0..0");
        assertThat(sections(r1.grouped.get(1))).containsExactly("0@1..1", "1@1..1");
        assertThat(r1.grouped.get(1).sections().get(0).prevOffset()).as("chained on the first frame's section")
                .isEqualTo(0L);
    }

    @Test
    void eachRelayGetsItsOwnFrame() {
        sender(settings(), 100, r1, r2);
        oneRecordOnEachThenTheLinger(0);

        assertThat(r1.grouped).singleElement().satisfies(f -> assertThat(sections(f)).containsExactly("0@0..0",
                "2@0..0"));
        assertThat(r2.grouped).singleElement().satisfies(f -> assertThat(sections(f)).containsExactly("1@0..0",
                "3@0..0"));
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));
        sender.onFrame(r2, AckFrame.ok(r2.grouped.get(0)));
        assertThat(committable()).hasSize(4);
    }

    @Test
    void theBatchesOfAFrameOnALostRelayLeaveAtOnceInAFrameOnAnother() {
        r2.preferred = false;
        sender(settings(), 100, r1, r2);
        oneRecordOnEachThenTheLinger(0);
        assertThat(r1.grouped).hasSize(1);

        r1.ready = false;
        sender.onRelayLost(r1);
        sender.tick();

        assertThat(r2.grouped).singleElement().satisfies(f -> assertThat(sections(f)).isEqualTo(
                sections(r1.grouped.get(0))));
        sender.onFrame(r2, AckFrame.ok(r2.grouped.get(0)));
        assertThat(committable()).hasSize(4);
        assertThat(backlogRecords).isZero();
    }

    @Test
    void aFrameTheRelayDidNotTakeLeavesItsBatchesOffTheWireAndDueAfterTheBackoff() {
        sender(settings());
        r1.closesOnSend = true;
        oneRecordOnEachThenTheLinger(0);
        assertThat(backlogRecords).as("not on the wire: the four wait at the sender").isEqualTo(4);

        r1.closesOnSend = false;
        sender.tick();
        assertThat(r1.grouped).as("not before the backoff").isEmpty();
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        assertThat(r1.grouped).singleElement().satisfies(f -> assertThat(f.sectionCount()).isEqualTo(4));
        assertThat(backlogRecords).as("on the wire now").isZero();
        assertThat(metric("records-resent-total")).as("never sent before").isZero();
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));
        assertThat(committable()).hasSize(4);
    }

    @Test
    void aReceiptOfTheFrameTimesEachOfItsBatchesOnTheWire() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);

        sender.onFrame(r1, AckFrame.received(r1.grouped.get(0)));

        assertThat(receipts).containsExactly(1, 1, 1, 1);
        assertThat(sender.inFlightBatches()).as("a receipt is no answer").isEqualTo(4);
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));
        sender.onFrame(r1, AckFrame.received(r1.grouped.get(0)));
        assertThat(receipts).as("a receipt after the answer is ignored").hasSize(4);
    }

    @Test
    void aRevokedPartitionsBatchIgnoresTheAnswerToItsFrame() {
        sender(settings());
        oneRecordOnEachThenTheLinger(0);

        sender.revoke(List.of(partitions.get(1)));
        sender.onFrame(r1, AckFrame.ok(r1.grouped.get(0)));

        assertThat(committable()).containsOnlyKeys(partitions.get(0), partitions.get(2), partitions.get(3));
        assertThat(sender.inFlightBatches()).isZero();
    }

    @Test
    void withAKeyABatchIsSignedOnlyWhenItLeavesAlone() {
        sender(settings(SenderIntegrity.of(key)));
        oneRecordOnEachThenTheLinger(0);
        BatchesFrame frame = r1.grouped.get(0);
        for (int i = 0; i < frame.sectionCount(); i++) {
            BatchFrame section = frame.section(i);
            try {
                assertThat(section.header().mac().isPresent()).as("the frame's MAC covers its sections").isFalse();
            } finally {
                section.release();
            }
        }

        sender.onFrame(r1, key.sign(AckFrame.nack(frame, AckReason.NOT_AUTHORIZED, "a topic is not allowed")));
        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();

        assertThat(r1.sent).hasSize(4).allSatisfy(alone -> assertThat(key.verify(alone))
                .isEqualTo(FrameSigner.Verdict.VALID));
        r1.sent.forEach(alone -> sender.onFrame(r1, key.sign(AckFrame.ok(alone.header()))));
        assertThat(committable()).hasSize(4);
    }

    @Test
    void withAKeyTheFrameLeavesSignedAndOnlyTheDestinationsSignedAnswerNamingItCommitsOrRefuses() {
        sender(settings(SenderIntegrity.of(key)));
        oneRecordOnEachThenTheLinger(0);
        BatchesFrame frame = r1.grouped.get(0);
        assertThat(key.verify(frame)).isEqualTo(FrameSigner.Verdict.VALID);

        sender.onFrame(r1, AckFrame.ok(frame)); // a relay's: no MAC
        AckFrame ok = AckFrame.ok(frame);
        sender.onFrame(r1, key.sign(new AckFrame(ok.streamId(), ok.originNodeId(), ok.batchId(), ok.status(),
                ok.reason(), "payments", -1, -1, ""))); // signed, but names another first topic
        sender.onFrame(r1, AckFrame.nack(frame, AckReason.NOT_AUTHORIZED, "made up"));
        assertThat(committable()).isEmpty();
        assertThat(sender.fatalError()).isNull();
        assertThat(metric("unverified-acks-total")).isEqualTo(3);

        now.addAndGet(RETRY_BACKOFF.toNanos());
        sender.tick();
        assertThat(r1.sent).as("an unsigned refusal sends nothing alone").isEmpty();
        assertThat(r1.grouped).hasSize(2);
        sender.onFrame(r1, key.sign(AckFrame.ok(r1.grouped.get(1))));
        assertThat(committable()).hasSize(4);
    }
}
