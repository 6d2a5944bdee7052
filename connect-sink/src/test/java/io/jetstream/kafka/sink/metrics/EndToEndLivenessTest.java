package io.jetstream.kafka.sink.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class EndToEndLivenessTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Map<String, Supplier<Number>> gauges = new LinkedHashMap<>();
    private final EndToEndLiveness liveness = new EndToEndLiveness(clock::get,
            (metric, doc, tags, value) -> assertThat(gauges.put(metric + tags, value)).isNull());

    private double gauge(String key) {
        return gauges.get(key).get().doubleValue();
    }

    @Test
    void heartbeatAgeIsTheTimeSinceTheNewestWordFromTheSourceByItsClock() {
        assertThat(gauge(EndToEndLiveness.HEARTBEAT_AGE + "{}")).as("nothing heard yet").isNaN();

        liveness.heard(P0, 999_000);
        liveness.heard(P1, 999_500);
        liveness.heard(P0, 998_000); // a re-sent batch made earlier: the newest word stays

        assertThat(gauge(EndToEndLiveness.HEARTBEAT_AGE + "{}")).isEqualTo(0.5);
        assertThat(gauge(EndToEndLiveness.HEARTBEAT_AGE + "{topic=orders, partition=0}")).isEqualTo(1.0);
        clock.addAndGet(30_000);
        assertThat(liveness.heartbeatAgeSeconds()).as("silence grows the age").isEqualTo(30.5);
        assertThat(liveness.heartbeatAgeSeconds(P1)).isEqualTo(30.5);
    }

    @Test
    void recordAgeIsTimestampToWrittenForThePartitionsNewestRecord() {
        liveness.written(P0, 990_000);
        assertThat(gauge(EndToEndLiveness.RECORD_AGE + "{topic=orders, partition=0}")).isEqualTo(10.0);

        clock.addAndGet(1_000);
        liveness.written(P0, 1_000_800);
        liveness.written(P0, 995_000); // an older record written late does not replace the newest

        assertThat(liveness.recordAgeSeconds(P0)).isEqualTo(0.2);
        assertThat(liveness.recordAgeSeconds(P1)).isNaN();
    }

    @Test
    void aClockAheadAtTheSourceReadsAsZeroNotNegative() {
        liveness.heard(P0, 1_005_000);

        assertThat(liveness.heartbeatAgeSeconds()).isZero();
    }
}
