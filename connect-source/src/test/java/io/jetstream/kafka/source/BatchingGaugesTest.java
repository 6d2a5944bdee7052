package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BatchingGaugesTest {

    private final Map<String, Supplier<Number>> gauges = new TreeMap<>();

    @Test
    void theCapsReadAsConfigured() {
        BatchDecision caps = new BatchDecision(500, 1 << 20, Duration.ofMillis(25), 8, 64L << 20);
        BatchingGauges.register((name, doc, value) -> gauges.put(name, value), new FixedBatchPolicy(caps), () -> 0L);

        assertThat(gauges).containsOnlyKeys("batch-max-records", "batch-max-bytes", "batch-linger-seconds",
                "window-batches", "window-bytes");
        assertThat(value("batch-max-records")).isEqualTo(500);
        assertThat(value("batch-max-bytes")).isEqualTo(1 << 20);
        assertThat(value("batch-linger-seconds")).isEqualTo(0.025);
        assertThat(value("window-batches")).isEqualTo(8);
        assertThat(value("window-bytes")).isEqualTo(64L << 20);
    }

    @Test
    void eachReadAsksThePolicyAtTheClocksNow() {
        AtomicLong now = new AtomicLong(1_000);
        List<Long> askedAt = new ArrayList<>();
        BatchDecision caps = new BatchDecision(10, 1_000, Duration.ZERO, 1, 1_000L);
        BatchPolicy policy = nowNanos -> {
            askedAt.add(nowNanos);
            return caps;
        };
        BatchingGauges.register((name, doc, value) -> gauges.put(name, value), policy, now::get);

        value("batch-max-records");
        now.set(5_000);
        value("window-bytes");

        assertThat(askedAt).containsExactly(1_000L, 5_000L);
    }

    private Number value(String gauge) {
        return gauges.get(gauge).get();
    }
}
