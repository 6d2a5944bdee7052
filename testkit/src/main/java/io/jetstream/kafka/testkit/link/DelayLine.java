package io.jetstream.kafka.testkit.link;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One direction of one connection, between its reader and its writer: a FIFO of chunks, each handed to the writer no
 * earlier than its ready time plus the link's current one-way delay.
 *
 * <p>Invariants: order is preserved (the writer only ever takes the head); the bytes held never exceed the budget by
 * more than one chunk (an empty line always admits one chunk, so a chunk larger than the budget cannot deadlock); a
 * chunk counts against the budget from {@link #put} until the writer has written it and called {@link #release}, so a
 * destination that does not read stops the reader, which stops reading its socket: backpressure, never unbounded
 * buffering. The delay is read when the head is examined, so {@code setDelay} also applies to bytes in flight.
 *
 * <p>Threading: one reader thread calls {@link #awaitSpace} and {@link #put}, one writer thread calls {@link #take}
 * and {@link #release}; any thread may call {@link #wakeUp} and {@link #close}.
 */
final class DelayLine {

    /** Bytes read at one time; {@link #END} marks the end of the stream (the reader saw EOF). */
    record Chunk(byte[] data, int length, long readyAtNanos) {
        boolean isEnd() {
            return length < 0;
        }
    }

    private final LongSupplier budgetBytes;
    private final LongSupplier delayNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition headChanged = lock.newCondition();
    private final Condition spaceFreed = lock.newCondition();
    private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
    private long bufferedBytes;
    private boolean closed;

    /**
     * @param budgetBytes current in-flight budget of this direction, read at every admission
     * @param delayNanos  current one-way delay, read whenever the head is examined
     */
    DelayLine(LongSupplier budgetBytes, LongSupplier delayNanos) {
        this.budgetBytes = budgetBytes;
        this.delayNanos = delayNanos;
    }

    /** Blocks until {@code bytes} fit in the budget; returns false if the line was closed meanwhile. */
    boolean awaitSpace(int bytes) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!closed && bufferedBytes > 0 && bufferedBytes + bytes > budgetBytes.getAsLong()) {
                // Re-check now and then: the budget grows when setRate/setDelay raise it.
                spaceFreed.await(50, TimeUnit.MILLISECONDS);
            }
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Appends a chunk; the caller has made room with {@link #awaitSpace}. */
    void put(byte[] data, int length, long readyAtNanos) {
        append(new Chunk(data, length, readyAtNanos));
    }

    /** Appends the end-of-stream marker; the writer sees it after every chunk before it, with the same delay. */
    void putEnd(long readyAtNanos) {
        append(new Chunk(null, -1, readyAtNanos));
    }

    private void append(Chunk chunk) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            boolean wasEmpty = chunks.isEmpty();
            chunks.addLast(chunk);
            if (!chunk.isEnd()) {
                bufferedBytes += chunk.length();
            }
            if (wasEmpty) {
                headChanged.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until the head chunk is due (ready time + current delay) and removes it, or returns null once the line is
     * closed. The writer must {@link #release} a data chunk after writing it.
     */
    Chunk take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!closed) {
                Chunk head = chunks.peekFirst();
                if (head == null) {
                    headChanged.await();
                    continue;
                }
                long waitNanos = head.readyAtNanos() + delayNanos.getAsLong() - System.nanoTime();
                if (waitNanos <= 0) {
                    return chunks.pollFirst();
                }
                headChanged.awaitNanos(waitNanos);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Returns a written chunk's bytes to the budget. */
    void release(Chunk chunk) {
        lock.lock();
        try {
            bufferedBytes -= chunk.length();
            spaceFreed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Makes the writer re-read the delay (after {@code setDelay}) and the reader the budget. */
    void wakeUp() {
        lock.lock();
        try {
            headChanged.signalAll();
            spaceFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Drops every chunk and releases both threads; idempotent. */
    void close() {
        lock.lock();
        try {
            closed = true;
            chunks.clear();
            bufferedBytes = 0;
            headChanged.signalAll();
            spaceFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long bufferedBytes() {
        lock.lock();
        try {
            return bufferedBytes;
        } finally {
            lock.unlock();
        }
    }
}
