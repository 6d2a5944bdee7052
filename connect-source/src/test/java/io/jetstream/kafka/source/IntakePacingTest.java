package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IntakePacingTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Long> waits = new ArrayList<>();
    /** Waiting moves the clock: the fake thread sleeps exactly as long as asked. */
    private final IntakePacing pacing = new IntakePacing(Duration.ofMillis(5), now::get, nanos -> {
        waits.add(nanos);
        now.addAndGet(nanos);
    });

    private void passMillis(long millis) {
        now.addAndGet(Duration.ofMillis(millis).toNanos());
    }

    @Test
    void aTrickleOfPutsIsSpacedByTheInterval() {
        pacing.afterPut(1);
        assertThat(waits).as("the first put has nothing to be spaced from").isEmpty();
        passMillis(1);
        pacing.afterPut(2);
        passMillis(2);
        pacing.afterPut(1);
        assertThat(waits).containsExactly(Duration.ofMillis(4).toNanos(), Duration.ofMillis(3).toNanos());
    }

    @Test
    void emptyPutsAndPutsAfterALongerGapNeverWait() {
        pacing.afterPut(1);
        passMillis(1);
        pacing.afterPut(0);
        pacing.afterPut(0);
        assertThat(waits).as("an idle task's empty puts").isEmpty();
        passMillis(10);
        pacing.afterPut(2000);
        assertThat(waits).as("a put that took longer than the interval (a backlog's full poll)").isEmpty();
    }

    @Test
    void anIntervalOfZeroTurnsItOff() {
        IntakePacing off = new IntakePacing(Duration.ZERO, now::get, nanos -> waits.add(nanos));
        off.afterPut(1);
        off.afterPut(1);
        assertThat(waits).isEmpty();
    }

    @Test
    void anInterruptedWaitReturnsAtOnceAndKeepsTheInterrupt() {
        IntakePacing interrupted = new IntakePacing(Duration.ofMillis(5), now::get, nanos -> {
            throw new InterruptedException("task stopping");
        });
        interrupted.afterPut(1);
        interrupted.afterPut(1);
        assertThat(Thread.interrupted()).as("the flag is restored for the worker (and cleared here)").isTrue();
    }
}
