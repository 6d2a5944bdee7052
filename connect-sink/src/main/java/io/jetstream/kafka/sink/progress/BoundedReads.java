package io.jetstream.kafka.sink.progress;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs blocking reads on one daemon thread and waits at most a bound for each.
 *
 * <p>Connect's {@code OffsetStorageReader} waits without a limit for the offsets topic: while the
 * destination broker is down a read never returns. Called from {@code poll()}, such a read would
 * hold the task thread, so a stop requested by the worker (for example because the broker
 * coordinator became unreachable) times out and the instance lives on as a left-over beside its
 * successor. Through this class a read gives up after the bound (the blocked read is interrupted)
 * and the caller refuses the batch retriably instead.
 */
final class BoundedReads implements AutoCloseable {

    /** A read that did not complete within the bound, or could not start; retriable. */
    static final class ReadUnavailableException extends RuntimeException {
        ReadUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final ExecutorService executor;
    private final Duration timeout;

    BoundedReads(String threadName, Duration timeout) {
        this.timeout = timeout;
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Runs {@code read} and returns its result; a {@link RuntimeException} it throws is rethrown.
     *
     * @throws ReadUnavailableException when it does not complete within the bound (it is then
     *         interrupted), when this reader is closed, or when the calling thread is interrupted
     */
    <T> T read(String what, Callable<T> read) {
        Future<T> future;
        try {
            future = executor.submit(read);
        } catch (RejectedExecutionException e) {
            throw new ReadUnavailableException(what + ": the task is stopping", e);
        }
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new ReadUnavailableException(what + " not read within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new ReadUnavailableException(what + ": interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new ReadUnavailableException(what + ": " + cause, cause);
        }
    }

    /** Interrupts a read in progress; later reads fail at once. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
