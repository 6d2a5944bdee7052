package io.jetstream.kafka.relay.server;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's threads: one boss loop accepting connections on both listeners and
 * {@code io.threads} worker loops serving them (NIO; Netty 4.2's {@code MultiThreadIoEventLoopGroup}
 * with {@link NioIoHandler}, the successor of {@code NioEventLoopGroup}). Threads are named after
 * the relay so thread dumps of a JVM running several relays stay readable.
 */
final class RelayEventLoops {

    private static final Logger log = LoggerFactory.getLogger(RelayEventLoops.class);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;

    /** @param ioThreads worker threads; 0 for Netty's default (twice the processors) */
    RelayEventLoops(String relayId, int ioThreads) {
        this.boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("relay-boss-" + relayId),
                NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory("relay-io-" + relayId),
                NioIoHandler.newFactory());
    }

    EventLoopGroup boss() {
        return boss;
    }

    EventLoopGroup workers() {
        return workers;
    }

    /** Whether the calling thread is one of these loops (where blocking would deadlock). */
    boolean inEventLoop() {
        for (EventLoopGroup group : List.of(boss, workers)) {
            for (EventExecutor executor : group) {
                if (executor.inEventLoop()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Stops both groups and waits, bounded. Quiet period 0: once every channel is closed no new
     * task is expected, so there is nothing to wait for.
     */
    void shutdown(Duration timeout) {
        long timeoutMs = timeout.toMillis();
        Future<?> bossDone = boss.shutdownGracefully(0, timeoutMs, TimeUnit.MILLISECONDS);
        Future<?> workersDone = workers.shutdownGracefully(0, timeoutMs, TimeUnit.MILLISECONDS);
        for (Future<?> done : List.of(bossDone, workersDone)) {
            if (!done.awaitUninterruptibly(timeoutMs + 1_000)) {
                log.warn("Event loops did not stop within {} ms", timeoutMs);
            }
        }
    }
}
