package io.jetstream.kafka.core.bench;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The source task's per-tick bookkeeping against the size of its in-flight window: {@code tick} is
 * what the sender's 5 ms timer asks of the window when nothing is due (every batch on the wire,
 * waiting for its answer: the steady state), {@code sendAndAck} one batch's way through the window
 * (added, sent, acknowledged). A window of {@code batches} spread over {@code partitions}: at
 * 1,200 partitions and a few records per batch a task holds thousands. Run: see docs/bench/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class InFlightWindowBenchmark {

    @Param({"100", "1000", "10000"})
    int batches;

    @Param({"1200"})
    int partitions;

    private InFlightWindow<Object> window;
    private TopicPartition[] tps;
    private long nextId;
    private final long now = 1_000_000_000L;
    private final long ackTimeout = 15_000_000_000L;

    @Setup
    public void setUp() {
        window = new InFlightWindow<>(payload -> { });
        tps = new TopicPartition[partitions];
        for (int p = 0; p < partitions; p++) {
            tps[p] = new TopicPartition("bench", p);
        }
        for (int i = 0; i < batches; i++) {
            InFlightWindow.Entry<Object> entry = window.add(nextId, tps[i % partitions], nextId, 1, 1024, this, now, now);
            window.resent(entry, now, now + ackTimeout);
            nextId++;
        }
    }

    @Benchmark
    public int tick() {
        return window.due(now + 5_000_000L).size();
    }

    @Benchmark
    public Object sendAndAck() {
        long id = nextId++;
        InFlightWindow.Entry<Object> entry = window.add(id, tps[(int) (id % partitions)], id, 1, 1024, this, now, now);
        window.resent(entry, now, now + ackTimeout);
        // the oldest batch is answered, so the window keeps its size
        return window.ack(id - batches);
    }
}
