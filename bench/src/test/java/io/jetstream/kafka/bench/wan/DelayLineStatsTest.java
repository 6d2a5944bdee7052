package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DelayLineStatsTest {

    private static final String LINE = "packets=17352 bytes=20956708 dropped=0 write_errors=1 late_max_us=3476"
            + " late_p50_us=83 late_p99_us=727 late_p999_us=2408 late_over_1ms=117 in_flight_max=184"
            + " write_max_us=262";

    @Test
    void parsesTheCounterLine() {
        DelayLineStats stats = DelayLineStats.parse(LINE + "        \n").orElseThrow();

        assertThat(stats.packets()).isEqualTo(17_352);
        assertThat(stats.bytes()).isEqualTo(20_956_708);
        assertThat(stats.dropped()).isZero();
        assertThat(stats.writeErrors()).isEqualTo(1);
        assertThat(stats.lateP50()).isEqualTo(Duration.ofNanos(83_000));
        assertThat(stats.lateP99()).isEqualTo(Duration.ofNanos(727_000));
        assertThat(stats.lateP999()).isEqualTo(Duration.ofNanos(2_408_000));
        assertThat(stats.lateMax()).isEqualTo(Duration.ofNanos(3_476_000));
        assertThat(stats.lateOver1ms()).isEqualTo(117);
        assertThat(stats.inFlightMax()).isEqualTo(184);
        assertThat(stats.writeMax()).isEqualTo(Duration.ofNanos(262_000));
        assertThat(stats).hasToString("17352 packets, 20956708 bytes, 0 dropped, 1 write errors,"
                + " late p50/p99/p99.9/max 83/727/2408/3476 us (117 over 1 ms), at most 184 in flight,"
                + " longest write 262 us");
    }

    @Test
    void theExitLineParsesToo() {
        assertThat(DelayLineStats.parse("delayline exit " + LINE + " held=3")).isPresent();
    }

    @Test
    void aTruncatedOrGarbledLineIsNoStats() {
        assertThat(DelayLineStats.parse(LINE.substring(0, 40))).isEmpty();
        assertThat(DelayLineStats.parse(LINE.replace("bytes=20956708", "bytes=2095x"))).isEmpty();
        assertThat(DelayLineStats.parse("")).isEmpty();
    }
}
