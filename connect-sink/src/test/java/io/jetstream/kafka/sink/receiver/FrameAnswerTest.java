package io.jetstream.kafka.sink.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiverTest.FakeUpstream;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameAnswerTest {

    private final FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");
    private final Metrics metrics = new Metrics();
    private final Answers answers = new Answers(FrameIntegrity.of(key, true),
            new SinkSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(new PluginMetricsImpl(metrics,
                    Map.of())))));
    private final BatchEncoder encoder = new BatchEncoder();

    @AfterEach
    void close() {
        metrics.close();
    }

    /** The frame's header fields and sections, its body released: an answer needs nothing of the body. */
    private BatchesFrame released(int partitions) {
        List<BatchFrame> batches = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            batches.add(BatchFrame.copyOf(RoutingHeader.unrouted("demo", 1, "node-1", "B"),
                    encoder.encode(new RecordBatch("orders", p, -1, List.of(new ReplicatedRecord(0, 1, null,
                            new byte[] {1}))), CompressionCodec.NONE), 0, UnpooledByteBufAllocator.DEFAULT));
        }
        BatchesFrame frame = BatchesFrame.of(RoutingHeader.unrouted("demo", 77, "node-1", "B"), 0, batches,
                UnpooledByteBufAllocator.DEFAULT);
        batches.forEach(BatchFrame::release);
        frame.release();
        assertThat(frame.refCnt()).isZero();
        return frame;
    }

    private static AckFrame ok(int partition) {
        return new AckFrame("demo", "node-1", 77, AckStatus.OK, AckReason.NONE, "orders", partition, 0, "");
    }

    private static AckFrame nack(int partition, AckReason reason, String message) {
        return new AckFrame("demo", "node-1", 77, AckStatus.NACK, reason, "orders", partition, 0, message);
    }

    @Test
    void theFrameIsAnsweredOnceSignedWhenTheLastSectionIsAndADuplicateIsOk() {
        FakeUpstream relay = new FakeUpstream();
        FrameAnswer answer = new FrameAnswer(answers, relay, released(3));

        answers.send(answer.section(2), ok(2));
        answers.send(answer.section(0), ok(0));
        assertThat(relay.acks).isEmpty();
        answers.send(answer.section(1), new AckFrame("demo", "node-1", 77, AckStatus.OK, AckReason.DUPLICATE,
                "orders", 1, 0, ""));

        assertThat(relay.acks).singleElement().satisfies(ack -> {
            assertThat(ack.isOk()).isTrue();
            assertThat(ack.reason()).isEqualTo(AckReason.NONE);
            assertThat(ack.batchId()).isEqualTo(77);
            assertThat(ack.partition()).isEqualTo(-1);
            assertThat(key.verify(ack)).isEqualTo(FrameSigner.Verdict.VALID);
        });
    }

    @Test
    void theNackNamesTheFirstSectionNotAcceptedInSectionOrderAndStaysWithinTheMessageLimit() {
        FakeUpstream relay = new FakeUpstream();
        FrameAnswer answer = new FrameAnswer(answers, relay, released(4));

        answers.send(answer.section(3), nack(3, AckReason.OVERLOADED, "later"));
        answers.send(answer.section(0), ok(0));
        answers.send(answer.section(1), nack(1, AckReason.WRITE_FAILED, "x".repeat(1024)));
        answers.send(answer.section(2), ok(2));

        assertThat(relay.acks).singleElement().satisfies(ack -> {
            assertThat(ack.status()).isEqualTo(AckStatus.NACK);
            assertThat(ack.reason()).isEqualTo(AckReason.WRITE_FAILED);
            assertThat(ack.topic()).isEqualTo("orders");
            assertThat(ack.partition()).isEqualTo(-1);
            assertThat(ack.message()).startsWith("2 of 4 sections not accepted; the first, orders-1: xxx")
                    .hasSize(1024);
            assertThat(key.verify(ack)).isEqualTo(FrameSigner.Verdict.VALID);
        });
    }

    @Test
    void aSectionAnsweredTwiceCountsOnce() {
        FakeUpstream relay = new FakeUpstream();
        FrameAnswer answer = new FrameAnswer(answers, relay, released(2));

        answers.send(answer.section(0), nack(0, AckReason.OVERLOADED, "full"));
        answers.send(answer.section(0), ok(0));
        assertThat(relay.acks).isEmpty();
        answers.send(answer.section(1), ok(1));

        assertThat(relay.acks).singleElement().satisfies(ack -> assertThat(ack.reason())
                .as("the first answer holds").isEqualTo(AckReason.OVERLOADED));
    }

    @Test
    void aSectionsWayBackIsItsFramesConnectionAndEqualsTheSameSectionOfACopyOnly() {
        FakeUpstream relay = new FakeUpstream();
        FrameAnswer first = new FrameAnswer(answers, relay, released(2));
        FrameAnswer copy = new FrameAnswer(answers, relay, released(2));
        FrameAnswer viaAnotherRelay = new FrameAnswer(answers, new FakeUpstream(), released(2));

        assertThat(first.section(0)).isEqualTo(copy.section(0)).hasSameHashCodeAs(copy.section(0))
                .isNotEqualTo(first.section(1)).isNotEqualTo(viaAnotherRelay.section(0)).isNotEqualTo(relay);
        first.section(1).pauseReading();
        first.section(1).resumeReading();
        assertThat(relay.reading).containsExactly("pause", "resume");
        assertThat(first.section(0).name()).isEqualTo(relay.name());
    }

    /** Sections answered on several threads at once: exactly one answer, every time. */
    @Test
    void sectionsAnsweredConcurrentlyAnswerTheFrameExactlyOnce() throws Exception {
        int sections = 32;
        int threads = 4;
        BatchesFrame frame = released(sections);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                FakeUpstream relay = new FakeUpstream();
                FrameAnswer answer = new FrameAnswer(answers, relay, frame);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int first = t;
                    done.add(pool.submit(() -> {
                        start.await();
                        // each thread answers its own sections, and every section of the next thread's again
                        for (int s = 0; s < sections; s++) {
                            if (s % threads == first || s % threads == (first + 1) % threads) {
                                answers.send(answer.section(s), s == 7 ? nack(s, AckReason.TIMEOUT, "late") : ok(s));
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get();
                }
                assertThat(relay.acks).as("round " + round).singleElement()
                        .satisfies(ack -> assertThat(ack.reason()).isEqualTo(AckReason.TIMEOUT));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
