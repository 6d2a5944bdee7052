package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.source.SenderMetricsFixture;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The source task's 5 ms tick while its in-flight window is closed and sealed batches wait behind
 * it: a link near its capacity over many partitions, where every batch carries a few records. The
 * window holds {@code window} batches on the wire (unanswered) and {@code waiting} more wait for it,
 * one record each, spread over {@code partitions}. Nothing is answered during the measurement, so
 * every tick finds the same state. Run: see docs/bench/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class SenderTickBenchmark {

    @Param({"100", "1000", "5000"})
    int waiting;

    @Param({"1200"})
    int partitions;

    @Param({"256"})
    int window;

    private final FakeRelay relay = new FakeRelay("bench");
    private Metrics metrics;
    private ReplicationSender sender;

    @Setup(Level.Trial)
    public void setUp() {
        metrics = new Metrics();
        BatchDecision caps = new BatchDecision(1, 1 << 20, Duration.ofMillis(20), window, 64L << 20);
        long fixedNow = 1_000_000_000L;
        sender = new ReplicationSender(new SenderSettings("bench", "node-1", "B", CompressionCodec.NONE,
                Duration.ofSeconds(10), Duration.ofMillis(200), 1L << 30, SenderIntegrity.OFF), List.of(relay),
                new FixedBatchPolicy(caps), () -> fixedNow, UnpooledByteBufAllocator.DEFAULT,
                SenderMetricsFixture.events(metrics));
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition("bench", p));
        }
        sender.assign(tps);
        // the first batch of each partition passes even a closed window (its oldest): fill the window
        // and every partition's head first, then the batches that wait
        int batches = Math.max(window, partitions) + waiting;
        for (int i = 0; i < batches; i++) {
            TopicPartition tp = tps.get(i % partitions);
            long offset = i / partitions;
            sender.append(tp, new ReplicatedRecord(offset, 1000 + offset, ("k" + i).getBytes(), new byte[100]));
        }
        sender.tick();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sender.close();
        relay.releaseAll();
        metrics.close();
    }

    @Benchmark
    public int tickWhileTheWindowIsClosed() {
        sender.tick();
        return sender.inFlightBatches();
    }
}
