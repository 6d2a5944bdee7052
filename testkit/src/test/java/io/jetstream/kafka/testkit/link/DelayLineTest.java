package io.jetstream.kafka.testkit.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class DelayLineTest {

    private static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    @Test
    void releasesChunksInOrderNoEarlierThanReadyPlusDelay() throws Exception {
        DelayLine line = new DelayLine(() -> 1 << 20, () -> DELAY_NANOS);
        long readyAt = System.nanoTime();
        line.put(new byte[] {1}, 1, readyAt);
        line.put(new byte[] {2}, 1, readyAt + TimeUnit.MILLISECONDS.toNanos(5));
        line.putEnd(readyAt + TimeUnit.MILLISECONDS.toNanos(5));

        DelayLine.Chunk first = line.take();
        long firstAt = System.nanoTime();
        DelayLine.Chunk second = line.take();
        long secondAt = System.nanoTime();

        assertThat(first.data()[0]).isEqualTo((byte) 1);
        assertThat(second.data()[0]).isEqualTo((byte) 2);
        assertThat(firstAt - readyAt).isGreaterThanOrEqualTo(DELAY_NANOS);
        assertThat(secondAt - readyAt).isGreaterThanOrEqualTo(DELAY_NANOS + TimeUnit.MILLISECONDS.toNanos(5));
        assertThat(line.take().isEnd()).isTrue();
    }

    @Test
    void readerWaitsForSpaceUntilTheWriterReleases() throws Exception {
        DelayLine line = new DelayLine(() -> 100, () -> 0);
        line.put(new byte[80], 80, System.nanoTime());

        CompletableFuture<Boolean> admitted = CompletableFuture.supplyAsync(() -> awaitSpace(line, 30));

        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !admitted.isDone());
        line.release(line.take());
        assertThat(admitted.get(2, TimeUnit.SECONDS)).isTrue();
        assertThat(line.bufferedBytes()).isZero();
    }

    @Test
    void anEmptyLineAdmitsAChunkLargerThanTheBudget() throws Exception {
        DelayLine line = new DelayLine(() -> 100, () -> 0);

        assertThat(line.awaitSpace(1000)).isTrue();
    }

    @Test
    void closeReleasesBothThreads() throws Exception {
        DelayLine line = new DelayLine(() -> 100, () -> DELAY_NANOS);
        line.put(new byte[100], 100, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
        AtomicLong taken = new AtomicLong(-1);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> taken.set(take(line) == null ? 0 : 1));
        CompletableFuture<Boolean> reader = CompletableFuture.supplyAsync(() -> awaitSpace(line, 10));

        line.close();

        writer.get(2, TimeUnit.SECONDS);
        assertThat(taken.get()).isZero();
        assertThat(reader.get(2, TimeUnit.SECONDS)).isFalse();
    }

    private static boolean awaitSpace(DelayLine line, int bytes) {
        try {
            return line.awaitSpace(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static DelayLine.Chunk take(DelayLine line) {
        try {
            return line.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
