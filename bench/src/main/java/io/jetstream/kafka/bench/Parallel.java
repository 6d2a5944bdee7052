package io.jetstream.kafka.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * Starts and stops the benchmark's processes side by side (most of a JVM's start is waiting), and
 * picks free ports. A start failure is rethrown as the first failure's own exception type.
 */
final class Parallel {

    private Parallel() {
    }

    /** Something that starts a process and waits until it serves. */
    @FunctionalInterface
    interface Starter {
        void start() throws IOException, TimeoutException, InterruptedException;
    }

    /** Runs every starter on its own thread and waits for all; rethrows the first failure. */
    static void start(List<Starter> starters) throws IOException, TimeoutException, InterruptedException {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (Starter starter : starters) {
            futures.add(CompletableFuture.runAsync(() -> {
                try {
                    starter.start();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (TimeoutException | InterruptedException e) {
                    throw new CompletionException(e);
                }
            }));
        }
        try {
            CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() instanceof CompletionException inner ? inner.getCause() : e.getCause();
            if (cause instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (cause instanceof TimeoutException timeout) {
                throw timeout;
            }
            if (cause instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw new IllegalStateException("starting benchmark processes failed", cause);
        }
    }

    /** Runs every task on its own thread and waits for all. */
    static void run(List<Runnable> stops) {
        CompletableFuture.allOf(stops.stream().map(CompletableFuture::runAsync).toArray(CompletableFuture[]::new))
                .join();
    }
}
