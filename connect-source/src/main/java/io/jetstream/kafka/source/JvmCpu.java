package io.jetstream.kafka.source;

import io.jetstream.kafka.core.environment.CpuLoad;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The CPU of the worker's JVM and of its machine (its container's share, where the JDK sees one), from
 * the JDK's {@code com.sun.management.OperatingSystemMXBean}: the cores the process kept busy since the
 * previous sample (its CPU time over the time passed; at the first sample, its CPU load times the cores
 * available), and the machine's CPU load. Sampled on read, at most once per {@link #MIN_INTERVAL_NANOS},
 * so readers close together (a scrape reading several gauges, then the task's view) do not each measure
 * over microseconds; a figure is the mean since the previous sample, so a scrape every 15 to 60 s keeps it
 * recent. A JVM without that bean reads {@link CpuLoad#UNKNOWN}.
 *
 * <p>Thread-safe.
 */
final class JvmCpu implements Supplier<CpuLoad> {

    /** A sample younger than this is answered again. */
    static final long MIN_INTERVAL_NANOS = 1_000_000_000L;

    private final OperatingSystemMXBean os;
    private final LongSupplier nanoTime;
    private CpuLoad last;
    private long lastNanos;
    private long lastCpuTimeNanos = -1;

    JvmCpu(OperatingSystemMXBean os, LongSupplier nanoTime) {
        this.os = os;
        this.nanoTime = nanoTime;
    }

    /** The platform's bean, sampled at {@code nanoTime}. */
    static JvmCpu platform(LongSupplier nanoTime) {
        return new JvmCpu(ManagementFactory.getOperatingSystemMXBean(), nanoTime);
    }

    @Override
    public synchronized CpuLoad get() {
        long now = nanoTime.getAsLong();
        if (last == null || now - lastNanos >= MIN_INTERVAL_NANOS) {
            last = sample(now);
            lastNanos = now;
        }
        return last;
    }

    private CpuLoad sample(long now) {
        if (!(os instanceof com.sun.management.OperatingSystemMXBean bean)) {
            return CpuLoad.UNKNOWN;
        }
        int cores = os.getAvailableProcessors();
        long cpuTime = bean.getProcessCpuTime();
        boolean sinceLastSample = last != null && lastCpuTimeNanos >= 0 && cpuTime >= lastCpuTimeNanos
                && now > lastNanos;
        double processCores;
        if (sinceLastSample) {
            processCores = (double) (cpuTime - lastCpuTimeNanos) / (now - lastNanos);
        } else {
            double load = bean.getProcessCpuLoad(); // the bean answers a negative load when it cannot measure one
            processCores = load < 0 ? Double.NaN : load * cores;
        }
        lastCpuTimeNanos = cpuTime;
        double machine = bean.getCpuLoad();
        return new CpuLoad(processCores, cores, machine < 0 ? Double.NaN : machine);
    }
}
