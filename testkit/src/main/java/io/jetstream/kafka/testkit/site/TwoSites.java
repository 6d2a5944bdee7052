package io.jetstream.kafka.testkit.site;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two sites side by side: A (the source datacenter) and B (the destination). Both start in
 * parallel, since most of a start is waiting on JVM warm-up and group joins. One environment is
 * meant to be shared by a whole test class (start in {@code @BeforeAll}, close in {@code @AfterAll}).
 */
public final class TwoSites implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TwoSites.class);

    private final Site a;
    private final Site b;

    private TwoSites(Site a, Site b) {
        this.a = a;
        this.b = b;
    }

    /**
     * Builds and starts sites "A" and "B" under {@code baseDir}, letting the caller adjust each
     * builder (plugin path, WAN listener, properties) first.
     */
    public static TwoSites start(Path baseDir, Consumer<Site.Builder> configureA, Consumer<Site.Builder> configureB)
            throws IOException, TimeoutException, InterruptedException {
        Site.Builder builderA = Site.builder("A", baseDir.resolve("site-a"));
        Site.Builder builderB = Site.builder("B", baseDir.resolve("site-b"));
        configureA.accept(builderA);
        configureB.accept(builderB);
        Site a = builderA.build();
        Site b = builderB.build();
        long startNanos = System.nanoTime();
        try {
            CompletableFuture<Void> startA = CompletableFuture.runAsync(() -> startQuietly(a));
            CompletableFuture<Void> startB = CompletableFuture.runAsync(() -> startQuietly(b));
            CompletableFuture.allOf(startA, startB).join();
        } catch (CompletionException e) {
            a.close();
            b.close();
            Throwable cause = e.getCause();
            if (cause instanceof StartFailure failure) {
                cause = failure.getCause();
            }
            if (cause instanceof TimeoutException timeout) {
                throw timeout;
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("Starting the two sites failed", cause);
        }
        log.info("Two sites up in {} ms: {} and {}", (System.nanoTime() - startNanos) / 1_000_000, a, b);
        return new TwoSites(a, b);
    }

    private static void startQuietly(Site site) {
        try {
            site.start();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new StartFailure(e);
        }
    }

    public Site a() {
        return a;
    }

    public Site b() {
        return b;
    }

    @Override
    public void close() {
        CompletableFuture.allOf(CompletableFuture.runAsync(b::close), CompletableFuture.runAsync(a::close)).join();
    }

    private static final class StartFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StartFailure(Exception cause) {
            super(cause);
        }
    }
}
