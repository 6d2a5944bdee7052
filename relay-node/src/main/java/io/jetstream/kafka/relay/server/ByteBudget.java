package io.jetstream.kafka.relay.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Gauge;

/**
 * One byte budget: a maximum, the bytes reserved within it, and the count of batches holding
 * them. The relay-wide one ({@code buffer.max.bytes}) is what a graceful shutdown waits to empty;
 * each upstream connection has an unmetered one ({@code buffer.max.bytes.per.connection}). The
 * data path's {@code BufferBudgets} owns both kinds and is the only one that reserves and returns.
 *
 * <p>A batch's bytes are reserved before it is taken ({@link #tryReserve}) and released once the
 * batch is acknowledged downstream or failed back upstream ({@link #release}), possibly most of
 * them earlier ({@link #releasePart}); in the protocol data path one owner does both (its
 * {@code BufferBudgets}, whose reservations release themselves exactly once). A failed reservation
 * means "stop reading from this connection (or nack) until space frees up": the budget never
 * blocks and never over-commits. Lock-free and thread-safe; the
 * metrics gauges follow every change.
 */
public final class ByteBudget {

    private final long maxBytes;
    private final GaugeDataPoint bytesGauge;
    private final GaugeDataPoint batchesGauge;
    private final AtomicLong reservedBytes = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicReference<CompletableFuture<Void>> emptyWaiter = new AtomicReference<>();

    /**
     * @param maxBytes     most bytes reserved at once
     * @param bytesGauge   follows the reserved bytes ({@code jetstream_relay_buffered_bytes})
     * @param batchesGauge follows the batch count ({@code jetstream_relay_inflight_batches})
     */
    public ByteBudget(long maxBytes, GaugeDataPoint bytesGauge, GaugeDataPoint batchesGauge) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.bytesGauge = bytesGauge;
        this.batchesGauge = batchesGauge;
    }

    /** A budget that reports to no metric, e.g. for one connection's share. */
    public static ByteBudget unmetered(long maxBytes) {
        return new ByteBudget(maxBytes, unexported(), unexported());
    }

    /** A gauge in no registry: counts like the others, exported nowhere. */
    private static GaugeDataPoint unexported() {
        return Gauge.builder().name("jetstream_relay_unexported").build();
    }

    /**
     * Reserves room for one batch.
     *
     * @param bytes the batch's size, positive
     * @return false, reserving nothing, when the batch does not fit in what is left
     */
    public boolean tryReserve(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive, was " + bytes);
        }
        long current;
        do {
            current = reservedBytes.get();
            if (current + bytes > maxBytes) {
                return false;
            }
        } while (!reservedBytes.compareAndSet(current, current + bytes));
        batches.incrementAndGet();
        bytesGauge.inc(bytes);
        batchesGauge.inc();
        return true;
    }

    /**
     * Returns part of a batch's reservation while the batch stays held (it left the relay's memory
     * but awaits its answer). The rest returns with {@link #release}.
     */
    public void releasePart(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative, was " + bytes);
        }
        long bytesLeft = reservedBytes.addAndGet(-bytes);
        if (bytesLeft < 0) {
            throw new IllegalStateException("released more than reserved: " + bytesLeft + " bytes left");
        }
        bytesGauge.dec(bytes);
    }

    /**
     * Returns one batch's reservation, or what {@link #releasePart} left of it; call exactly once per
     * successful {@link #tryReserve}.
     */
    public void release(long bytes) {
        long bytesLeft = reservedBytes.addAndGet(-bytes);
        long batchesLeft = batches.decrementAndGet();
        if (bytesLeft < 0 || batchesLeft < 0) {
            throw new IllegalStateException("released more than reserved: " + bytesLeft + " bytes, "
                    + batchesLeft + " batches left");
        }
        bytesGauge.dec(bytes);
        batchesGauge.dec();
        if (batchesLeft == 0 && emptyWaiter.get() != null) {
            signalEmpty();
        }
    }

    public long maxBytes() {
        return maxBytes;
    }

    public long reservedBytes() {
        return reservedBytes.get();
    }

    public long batches() {
        return batches.get();
    }

    public boolean isEmpty() {
        return batches.get() == 0;
    }

    /**
     * Completes when no batch is held, immediately if none is now. It may complete while a new
     * reservation races in: callers that need "empty and staying empty" stop new reservations first
     * (a draining relay refuses new batches) and re-check {@link #isEmpty()}.
     */
    public CompletableFuture<Void> whenEmpty() {
        if (isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> waiter = emptyWaiter.updateAndGet(w -> w != null ? w : new CompletableFuture<>());
        // release() reads emptyWaiter after it decrements; we read batches after publishing the
        // waiter. With both sides using atomics, at least one of them sees the other: no lost wakeup.
        if (isEmpty()) {
            signalEmpty();
        }
        return waiter;
    }

    private void signalEmpty() {
        CompletableFuture<Void> waiter = emptyWaiter.getAndSet(null);
        if (waiter != null) {
            waiter.complete(null);
        }
    }

    @Override
    public String toString() {
        return batches() + " batches, " + reservedBytes() + "/" + maxBytes + " bytes";
    }
}
