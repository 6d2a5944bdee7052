package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a {@link Reading} every {@code interval} (500 ms) on its own thread and keeps them, so that
 * the report can plot throughput per uplink and CPU per process over time; {@link #read()} takes
 * one on demand at a phase boundary. A reading failure is logged and skipped, never fatal.
 *
 * <p>Thread-safe: readings are appended and copied under the instance lock.
 */
final class Sampler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Sampler.class);

    private final BenchNetwork network;
    private final Supplier<Map<String, Long>> processes;
    private final LongSupplier recordBytesAtB;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "bench-sampler");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Reading> readings = new ArrayList<>();

    /**
     * @param processes      name to process id of every process to watch, asked at each reading
     *                       (processes come and go between variants)
     * @param recordBytesAtB record bytes seen at site B so far
     */
    Sampler(BenchNetwork network, Supplier<Map<String, Long>> processes, LongSupplier recordBytesAtB,
            Duration interval) {
        this.network = network;
        this.processes = processes;
        this.recordBytesAtB = recordBytesAtB;
        timer.scheduleAtFixedRate(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sample() {
        try {
            Reading reading = read(false);
            synchronized (this) {
                readings.add(reading);
            }
        } catch (RuntimeException e) {
            log.warn("benchmark sample failed: {}", e.toString());
        }
    }

    /** A reading now, with the JIT compiler threads' ticks (phase boundaries: {@link Window}). */
    Reading read() {
        return read(true);
    }

    /**
     * @param withJit also read every thread of every process for its JIT share: a few thousand
     *                small files, so only at phase boundaries, not every 500 ms for the plots
     */
    private Reading read(boolean withJit) {
        long nanos = System.nanoTime();
        Map<String, Long> uplinks = new LinkedHashMap<>();
        for (String uplink : network.sourceUplinks()) {
            uplinks.put(uplink, network.uplinkTxBytes(uplink));
        }
        Map<String, Long> ticks = new LinkedHashMap<>();
        Map<String, Long> jit = new LinkedHashMap<>();
        processes.get().forEach((name, pid) -> {
            OptionalLong t = ProcStat.readProcessTicks(pid);
            if (t.isPresent()) {
                ticks.put(name, t.getAsLong());
                if (withJit) {
                    jit.put(name, ProcStat.readJitTicks(pid));
                }
            }
        });
        return new Reading(nanos, uplinks, ticks, jit, ProcStat.readMachine(), recordBytesAtB.getAsLong());
    }

    /** The periodic readings taken between {@code fromNanos} and {@code toNanos}. */
    synchronized List<Reading> between(long fromNanos, long toNanos) {
        return readings.stream().filter(r -> r.nanos() >= fromNanos && r.nanos() <= toNanos).toList();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
