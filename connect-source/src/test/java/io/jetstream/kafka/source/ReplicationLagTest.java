package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReplicationLagTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final Map<TopicPartition, Long> ends = new HashMap<>();
    private final Map<TopicPartition, Long> acked = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final AtomicLong nanos = new AtomicLong();
    private final Map<String, Supplier<Number>> gauges = new LinkedHashMap<>();
    private boolean endOffsetsFail;

    private final ReplicationLag lag = new ReplicationLag(this::endOffsets, this::acknowledged,
            new OriginCoverage.OriginOffsets() {
                @Override
                public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
                    return select(committed, partitions);
                }

                @Override
                public Map<TopicPartition, Long> logStart(Collection<TopicPartition> partitions) {
                    return Map.of();
                }
            }, tp -> tp.equals(P0) ? 300L : 0L, () -> 1_000L, () -> 100.0, nanos::get, new ReplicationLag.Gauges() {
                @Override
                public void gauge(String metric, String doc, Map<String, String> tags, Supplier<Number> value) {
                    assertThat(doc).isNotBlank();
                    assertThat(gauges.put(metric + tags, value)).as("registered once: %s%s", metric, tags).isNull();
                }

                @Override
                public void remove(String metric, Map<String, String> tags) {
                    gauges.remove(metric + tags);
                }
            });

    private Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        if (endOffsetsFail) {
            throw new IllegalStateException("no answer within 10000 ms reading the end offsets");
        }
        return select(ends, partitions);
    }

    private Map<TopicPartition, Long> acknowledged(Collection<TopicPartition> partitions) {
        return select(acked, partitions);
    }

    private static Map<TopicPartition, Long> select(Map<TopicPartition, Long> from, Collection<TopicPartition> keys) {
        Map<TopicPartition, Long> out = new HashMap<>();
        keys.forEach(k -> {
            if (from.containsKey(k)) {
                out.put(k, from.get(k));
            }
        });
        return out;
    }

    private double gauge(String metric, TopicPartition tp) {
        return gauges.get(metric + "{topic=" + tp.topic() + ", partition=" + tp.partition() + "}").get().doubleValue();
    }

    private double taskGauge(String metric) {
        return gauges.get(metric + "{}").get().doubleValue();
    }

    private void at(long seconds) {
        nanos.set(seconds * 1_000_000_000L);
    }

    @Test
    void lagIsTheEndOffsetMinusWhatTheDestinationAcknowledgedAndReturnsToZero() {
        lag.assign(List.of(P0));
        ends.put(P0, 1_000L);
        acked.put(P0, 400L);

        lag.refresh();

        assertThat(gauge(ReplicationLag.LAG_RECORDS, P0)).isEqualTo(600);
        assertThat(gauge(ReplicationLag.LAG_BYTES, P0)).as("600 records of 100 bytes on average").isEqualTo(60_000);
        assertThat(gauge(ReplicationLag.AT_RISK, P0)).isEqualTo(300);
        assertThat(taskGauge(ReplicationLag.AT_RISK)).isEqualTo(1_000);

        acked.put(P0, 1_000L);
        lag.refresh();

        assertThat(gauge(ReplicationLag.LAG_RECORDS, P0)).isZero();
        assertThat(gauge(ReplicationLag.CATCH_UP, P0)).isZero();
        assertThat(taskGauge(ReplicationLag.LAG_RECORDS)).isZero();
    }

    @Test
    void beforeAnyAcknowledgementTheGroupsCommittedOffsetIsThePosition() {
        lag.assign(List.of(P0, P1));
        ends.put(P0, 50L);
        ends.put(P1, 70L);
        committed.put(P0, 20L);

        lag.refresh();

        assertThat(gauge(ReplicationLag.LAG_RECORDS, P0)).isEqualTo(30);
        assertThat(gauge(ReplicationLag.LAG_RECORDS, P1)).as("position unknown").isNaN();
        assertThat(taskGauge(ReplicationLag.LAG_RECORDS)).as("the known partitions' sum").isEqualTo(30);
    }

    @Test
    void catchUpTimeIsTheLagOverTheNetRateAtWhichItShrinks() {
        lag.assign(List.of(P0));
        at(0);
        ends.put(P0, 10_000L);
        acked.put(P0, 0L);
        lag.refresh();
        assertThat(gauge(ReplicationLag.CATCH_UP, P0)).as("no rate yet").isInfinite();

        at(10); // 1,000 acknowledged per second while the end grew by 200 per second: 800 per second net
        ends.put(P0, 12_000L);
        acked.put(P0, 10_000L);
        lag.refresh();

        assertThat(gauge(ReplicationLag.LAG_RECORDS, P0)).isEqualTo(2_000);
        assertThat(gauge(ReplicationLag.CATCH_UP, P0)).isEqualTo(2.5);
        assertThat(taskGauge(ReplicationLag.CATCH_UP)).isEqualTo(2.5);

        // falling behind (the lag grows by 700 per second): the smoothed rate turns within a few refreshes
        for (int refresh = 1; refresh <= 3; refresh++) {
            at(10 + 10 * refresh);
            ends.put(P0, 12_000L + 8_000L * refresh);
            acked.put(P0, 10_000L + 1_000L * refresh);
            lag.refresh();
        }

        assertThat(gauge(ReplicationLag.CATCH_UP, P0)).isInfinite();
    }

    @Test
    void aFailedReadKeepsTheLastFiguresAndRevokedPartitionsLoseTheirGauges() {
        lag.assign(List.of(P0, P1));
        ends.put(P0, 10L);
        ends.put(P1, 10L);
        acked.put(P0, 5L);
        acked.put(P1, 10L);
        lag.refresh();

        endOffsetsFail = true;
        lag.refresh();
        assertThat(gauge(ReplicationLag.LAG_RECORDS, P0)).isEqualTo(5);

        lag.revoke(List.of(P0));
        lag.refresh();
        assertThat(gauges).doesNotContainKey(ReplicationLag.LAG_RECORDS + "{topic=orders, partition=0}")
                .containsKey(ReplicationLag.LAG_RECORDS + "{topic=orders, partition=1}");
        assertThat(taskGauge(ReplicationLag.LAG_RECORDS)).isZero();
    }
}
