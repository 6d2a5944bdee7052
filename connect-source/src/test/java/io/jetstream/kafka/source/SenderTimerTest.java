package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SenderTimerTest {

    /** A one-thread scheduler run by hand: what is executed or scheduled waits until the test runs it. */
    private static final class HandScheduler implements SenderTimer.Scheduler {
        record Scheduled(Runnable task, Duration delay, CompletableFuture<Void> future) {
        }

        final Deque<Runnable> executed = new ArrayDeque<>();
        final List<Scheduled> scheduled = new ArrayList<>();

        @Override
        public Future<?> schedule(Runnable task, Duration delay) {
            Scheduled s = new Scheduled(task, delay, new CompletableFuture<>());
            scheduled.add(s);
            return s.future();
        }

        @Override
        public void execute(Runnable task) {
            executed.add(task);
        }

        void runExecuted() {
            while (!executed.isEmpty()) {
                executed.poll().run();
            }
        }

        /** The one pending (not cancelled, not run) tick. */
        Scheduled pending() {
            List<Scheduled> live = scheduled.stream().filter(s -> !s.future().isDone()).toList();
            assertThat(live).as("exactly one tick pending").hasSize(1);
            return live.get(0);
        }

        /** Runs the pending tick; returns the delay it had. */
        Duration tick() {
            Scheduled next = pending();
            next.future().complete(null);
            next.task().run();
            return next.delay();
        }
    }

    private final HandScheduler scheduler = new HandScheduler();
    private final AtomicInteger ticks = new AtomicInteger();
    private final AtomicBoolean quiet = new AtomicBoolean(true);
    private final SenderTimer timer = new SenderTimer(scheduler, ticks::incrementAndGet, quiet::get);

    @Test
    void ticksEveryFiveMillisecondsWhileBatchesAreOpenOrUnansweredAndEveryHundredWhileQuiet() {
        timer.start();
        scheduler.runExecuted();
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.BUSY);

        scheduler.tick(); // quiet: the next tick is a slow one
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.QUIET);
        assertThat(timer.slow()).isTrue();

        quiet.set(false); // e.g. a heartbeat's look found nothing, but a re-send is pending
        scheduler.tick();
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.BUSY);
        assertThat(timer.slow()).isFalse();
        assertThat(ticks).hasValue(2);
    }

    @Test
    void aPutThatOpensBatchesWhileTheTimerIsSlowBringsTheNextTickForward() {
        timer.start();
        scheduler.runExecuted();
        scheduler.tick();
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.QUIET);

        quiet.set(false); // the put opened a batch
        timer.afterPut();
        scheduler.runExecuted();

        assertThat(scheduler.pending().delay()).as("the slow tick is replaced").isEqualTo(SenderTimer.BUSY);
        assertThat(timer.slow()).isFalse();
    }

    @Test
    void aPutThatLeavesNothingOpenOrFindsTheTimerFastChangesNothing() {
        timer.start();
        scheduler.runExecuted();
        timer.afterPut(); // fast timer
        assertThat(scheduler.executed).isEmpty();

        scheduler.tick();
        timer.afterPut(); // slow timer, but the put sent everything it took (still quiet)
        assertThat(scheduler.executed).isEmpty();
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.QUIET);
    }

    @Test
    void aPutDuringATickThatSawTheBatchesIsNotHurriedTwice() {
        timer.start();
        scheduler.runExecuted();
        scheduler.tick(); // slow
        // the put opens its batch and marks for a hurry; before the hurry runs, the slow tick runs and sees the batch
        quiet.set(false);
        timer.afterPut();
        scheduler.tick();
        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.BUSY);

        scheduler.runExecuted(); // the hurry finds the timer fast already

        assertThat(scheduler.pending().delay()).isEqualTo(SenderTimer.BUSY);
    }

    @Test
    void noTickIsScheduledAfterClose() {
        timer.start();
        scheduler.runExecuted();
        Duration first = scheduler.pending().delay();
        timer.close();
        scheduler.runExecuted();

        assertThat(first).isEqualTo(SenderTimer.BUSY);
        assertThat(scheduler.scheduled).allMatch(s -> s.future().isDone(), "cancelled");
        int before = ticks.get();
        scheduler.scheduled.get(0).task().run(); // a tick already on its way when closed
        assertThat(ticks).hasValue(before);
        assertThat(scheduler.scheduled).hasSize(1);
    }
}
