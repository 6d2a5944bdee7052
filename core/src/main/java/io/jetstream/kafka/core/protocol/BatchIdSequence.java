package io.jetstream.kafka.core.protocol;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Allocates batch and metadata ids for one sender: {@code id = epoch << 32 | sequence}.
 *
 * <p>The epoch is chosen when the sender starts (by default 31 random bits), the sequence counts
 * from 0 within it; when a sequence wraps, the sequence moves to the next epoch. Ids therefore never
 * repeat within a sender's lifetime, and a restarted sender (new epoch) does not reuse the ids of
 * its previous life that relays may still have in flight. Relays key in-flight state by
 * {@code (originNodeId, id)}, so ids only need to be unique per origin node. A batch re-sent on
 * another route keeps its id, so whichever copy is acknowledged first completes it.
 *
 * <p>Thread-safe.
 */
public final class BatchIdSequence {

    private final AtomicLong next;

    /** A sequence starting at {@code epoch << 32}. */
    public BatchIdSequence(int epoch) {
        this.next = new AtomicLong((long) epoch << 32);
    }

    /** A sequence with a random non-negative 31-bit epoch. */
    public static BatchIdSequence withRandomEpoch() {
        return new BatchIdSequence(new SecureRandom().nextInt() & Integer.MAX_VALUE);
    }

    public long next() {
        return next.getAndIncrement();
    }

    public static int epoch(long id) {
        return (int) (id >>> 32);
    }

    public static int sequence(long id) {
        return (int) id;
    }
}
