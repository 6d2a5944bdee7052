package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.environment.BindingConstraint;
import io.jetstream.kafka.core.environment.CpuLoad;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TaskEnvironmentTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final AtomicBoolean paused = new AtomicBoolean();
    private final AtomicReference<CpuLoad> cpu = new AtomicReference<>(new CpuLoad(0.2, 2, 0.3));
    private final OperatingPointMonitor monitor = new OperatingPointMonitor(new FixedBatchPolicy(new BatchDecision(20,
            1 << 20, Duration.ofMillis(5), 8, 64L << 20)));
    private final TaskEnvironment environment = new TaskEnvironment(monitor, now::get, paused::get, () -> 1_200,
            cpu::get);
    private final Map<String, Supplier<Number>> gauges = new TreeMap<>();

    @Test
    void theGaugesSayWhatBindsWhichCellTheTaskResemblesAndTheNewFigures() {
        environment.registerGauges((name, doc, value) -> gauges.put(name, value));
        for (int i = 0; i < 400; i++) {
            long t = now.addAndGet(10 * MS);
            monitor.onActiveStreams(6, t);
            monitor.onRecordsArrived(20, 20 * 1024, t);
            monitor.decision(t);
            monitor.onBatchSent(20, 20 * 1024, 12_000, 50_000, t);
            monitor.onBatchReceived(20, 12_000, t, t + 50 * MS);
            monitor.onBatchAcked(20, 12_000, t, t + 60 * MS, t);
        }

        assertThat(gauges).containsOnlyKeys("binding-constraint", "resembles-grid-cell",
                "resembles-grid-cell-distance", "base-rtt-seconds", "delivered-peak-bytes-per-second",
                "window-fullness");
        assertThat(value("binding-constraint")).isEqualTo(BindingConstraint.NONE.code());
        assertThat(value("resembles-grid-cell")).as("1,200 partitions assigned: p1200").isEqualTo(7);
        assertThat(value("resembles-grid-cell-distance").doubleValue()).isZero();
        assertThat(value("base-rtt-seconds").doubleValue()).isEqualTo(0.05);
        assertThat(value("delivered-peak-bytes-per-second").doubleValue()).isBetween(1.1e6, 1.3e6);
        assertThat(value("window-fullness").doubleValue()).isBetween(0.0, 1.0);

        paused.set(true);
        assertThat(value("binding-constraint")).as("paused at the path's peak: the link")
                .isEqualTo(BindingConstraint.LINK.code());
        cpu.set(new CpuLoad(1.9, 2, 0.95));
        assertThat(value("binding-constraint")).isEqualTo(BindingConstraint.CPU.code());
        assertThat(environment.read().binds().evidence()).startsWith("worker JVM busy 1.90 of 2 cores");
    }

    @Test
    void theJvmsCpuIsSampledOnReadAtMostOnceASecond() {
        AtomicLong clock = new AtomicLong();
        JvmCpu jvm = new JvmCpu(ManagementFactory.getOperatingSystemMXBean(), clock::get);

        CpuLoad first = jvm.get();
        clock.addAndGet(JvmCpu.MIN_INTERVAL_NANOS - 1);
        assertThat(jvm.get()).isSameAs(first);
        clock.addAndGet(1);
        CpuLoad second = jvm.get();

        assertThat(second.availableCores()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(second.processCores()).satisfiesAnyOf(c -> assertThat(c).isNaN(),
                c -> assertThat(c).isBetween(0.0, (double) second.availableCores()));
        assertThat(second.machineLoad()).satisfiesAnyOf(c -> assertThat(c).isNaN(), c -> assertThat(c).isBetween(0.0,
                1.0));
    }

    private Number value(String gauge) {
        return gauges.get(gauge).get();
    }
}
