package io.jetstream.kafka.sink.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class BoundedReadsTest {

    @Test
    void returnsTheResultAndRethrowsTheReadsOwnFailure() {
        try (BoundedReads reads = new BoundedReads("test-reads", Duration.ofSeconds(10))) {
            assertThat(reads.read("answer", () -> 42)).isEqualTo(42);
            assertThatThrownBy(() -> reads.read("broken", () -> {
                throw new IllegalStateException("reader is closed");
            })).isInstanceOf(IllegalStateException.class).hasMessage("reader is closed");
        }
    }

    @Test
    void aReadThatNeverReturnsGivesUpAfterTheBoundAndIsInterrupted() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch readEnded = new CountDownLatch(1);
        try (BoundedReads reads = new BoundedReads("test-reads", Duration.ofMillis(200))) {
            assertThatThrownBy(() -> reads.read("stored progress of t-0", () -> {
                try {
                    never.await();
                    return 0;
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                } finally {
                    readEnded.countDown();
                }
            })).isInstanceOf(BoundedReads.ReadUnavailableException.class)
                    .hasMessageContaining("stored progress of t-0 not read within 200 ms");
            assertThat(readEnded.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(interrupted).isTrue();
            // the reader thread is free again
            assertThat(reads.read("next", () -> "ok")).isEqualTo("ok");
        }
    }

    @Test
    void aClosedReaderRefusesAtOnce() {
        BoundedReads reads = new BoundedReads("test-reads", Duration.ofSeconds(10));
        reads.close();
        assertThatThrownBy(() -> reads.read("late", () -> 1))
                .isInstanceOf(BoundedReads.ReadUnavailableException.class)
                .hasMessageContaining("the task is stopping");
    }
}
