package io.jetstream.kafka.core.protocol.integrity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarningThrottleTest {

    @Test
    void theFirstEventIsLoggedThenOnePerIntervalSayingHowManyWereNot() {
        AtomicLong now = new AtomicLong(-5);
        WarningThrottle throttle = new WarningThrottle(Duration.ofNanos(10), now::get);

        assertThat(throttle.admit()).isZero();
        now.addAndGet(3);
        assertThat(throttle.admit()).isEqualTo(WarningThrottle.QUIET);
        now.addAndGet(3);
        assertThat(throttle.admit()).isEqualTo(WarningThrottle.QUIET);
        now.addAndGet(4);
        assertThat(throttle.admit()).as("an interval after the first").isEqualTo(2);
        now.addAndGet(100);
        assertThat(throttle.admit()).isZero();
    }
}
