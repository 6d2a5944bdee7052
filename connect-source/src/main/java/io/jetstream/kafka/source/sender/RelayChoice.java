package io.jetstream.kafka.source.sender;

import java.util.List;

/**
 * Which relay the sender hands a frame to: a ready relay, round robin, of the preferred tier
 * ({@link Relay#preferred()}, {@code relays.prefer.local}) while any of those is ready, else of the
 * others; and the largest record the relays take. Not thread-safe: used under the sender's lock
 * ({@link #maxRecordBytes()} excepted, which only reads the relays).
 */
public final class RelayChoice {

    /** {@link #maxRecordBytes()} before any relay has completed its handshake. */
    public static final long RECORD_LIMIT_UNKNOWN = -1;

    /** Room left in a batch payload for one record's framing: see {@link #maxRecordBytes()}. */
    public static final int RECORD_ENCODING_ALLOWANCE = 64 * 1024;

    private final List<Relay> relays;
    private int next;

    RelayChoice(List<? extends Relay> relays) {
        this.relays = List.copyOf(relays);
        if (this.relays.isEmpty()) {
            throw new IllegalArgumentException("at least one relay is needed");
        }
    }

    List<Relay> relays() {
        return relays;
    }

    /**
     * A ready relay, round robin, avoiding {@code avoid} (the one that just failed) when another is
     * ready: a preferred relay while any is ready, else one of the others; {@code avoid} itself when
     * it is the only one ready; null when none is.
     */
    Relay pick(Relay avoid) {
        Relay relay = pickReady(true, avoid);
        if (relay == null) {
            relay = pickReady(false, avoid);
        }
        if (relay == null && avoid != null && avoid.isReady()) {
            relay = avoid;
        }
        return relay;
    }

    /** The next ready relay of one tier after the last one picked, other than {@code avoid}; null if none. */
    private Relay pickReady(boolean preferredTier, Relay avoid) {
        for (int i = 0; i < relays.size(); i++) {
            int index = (next + i) % relays.size();
            Relay relay = relays.get(index);
            if (relay.preferred() == preferredTier && relay != avoid && relay.isReady()) {
                next = (index + 1) % relays.size();
                return relay;
            }
        }
        return null;
    }

    /**
     * The most key, value and header bytes one record may carry: a batch of that record alone must
     * fit the smallest payload any relay takes, with {@link #RECORD_ENCODING_ALLOWANCE} for the
     * record's framing (offset, timestamp, lengths, header keys in UTF-8) and no help from compression.
     * Relays whose limit is not known yet are left out (nothing is sent to them before their
     * handshake); {@link #RECORD_LIMIT_UNKNOWN} while no relay's limit is known.
     */
    long maxRecordBytes() {
        int smallest = Integer.MAX_VALUE;
        for (Relay relay : relays) {
            int limit = relay.maxBatchPayloadBytes();
            if (limit > 0) {
                smallest = Math.min(smallest, limit);
            }
        }
        if (smallest == Integer.MAX_VALUE) {
            return RECORD_LIMIT_UNKNOWN;
        }
        return Math.max(0, smallest - RECORD_ENCODING_ALLOWANCE);
    }
}
