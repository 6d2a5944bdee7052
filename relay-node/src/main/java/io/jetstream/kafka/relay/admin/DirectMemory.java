package io.jetstream.kafka.relay.admin;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Optional;

import io.netty.util.internal.PlatformDependent;

/**
 * How much direct (off-heap) memory the process uses, and may use. Netty counts the direct memory it
 * allocates only when it manages buffers without the JDK's cleaner; otherwise its buffers are JDK
 * direct buffers, counted in the JVM's {@code direct} buffer pool (the count behind
 * {@code OutOfMemoryError: Cannot reserve ... bytes of direct buffer memory}). The larger of the two
 * is reported, so either way the figure is what runs out. Thread-safe; cheap enough for every
 * {@code /health} request and scrape.
 */
public interface DirectMemory {

    /** Bytes of direct memory in use now. */
    long usedBytes();

    /** Most bytes of direct memory the process may use; positive. */
    long maxBytes();

    /** Share of {@link #maxBytes()} in use, 0 to 1 (or above, if a count overshoots). */
    default double usedShare() {
        return (double) usedBytes() / maxBytes();
    }

    /** The process's own figures. */
    static DirectMemory ofThisProcess() {
        Optional<BufferPoolMXBean> pool = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> "direct".equals(b.getName())).findFirst();
        return new DirectMemory() {
            @Override
            public long usedBytes() {
                long jdk = pool.map(BufferPoolMXBean::getMemoryUsed).orElse(0L);
                return Math.max(jdk, PlatformDependent.usedDirectMemory());
            }

            @Override
            public long maxBytes() {
                return Math.max(1, PlatformDependent.maxDirectMemory());
            }
        };
    }
}
