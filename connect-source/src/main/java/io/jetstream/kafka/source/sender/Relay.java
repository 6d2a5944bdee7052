package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.protocol.Frame;
import java.util.List;

/**
 * A relay the {@link ReplicationSender} hands frames to (the task's {@code SenderRelay} over a real connection).
 * What comes back from it (answers, the loss of the connection) goes to the {@link Inbound} the relay
 * was opened with: the sender opens its relays itself ({@link Opener}), so the two are wired once,
 * in one direction, when the sender is made.
 */
public interface Relay {

    String name();

    boolean isReady();

    /** Sends the frame, taking ownership; false (frame released) when the relay is not ready. */
    boolean send(Frame frame);

    /**
     * The largest batch payload the relay takes, or 0 while it is not known (the relay announces
     * its frame limit in its handshake).
     */
    int maxBatchPayloadBytes();

    /**
     * Whether the relay is in the preferred tier (e.g. on this worker's host, {@code relays.prefer.local}):
     * the others get batches only while no preferred relay is ready.
     */
    default boolean preferred() {
        return true;
    }

    /**
     * The round trip of the relay's last heartbeat, in nanoseconds, for the batching model
     * ({@link RttSampler}); 0 while the relay is not ready or has not measured one.
     */
    default long rttNanos() {
        return 0;
    }

    /** Where a relay hands what comes back: answers (acknowledgements) and the loss of its connection. */
    interface Inbound {
        /** Handles a frame from the relay and releases it. */
        void onFrame(Relay from, Frame frame);

        /** The relay's connection was lost. */
        void onRelayLost(Relay relay);
    }

    /**
     * Opens the relays, each handing what comes back to {@code inbound}. The relays may not hand
     * anything over before the sender that opened them is made (their connections start after it).
     */
    @FunctionalInterface
    interface Opener {
        List<? extends Relay> open(Inbound inbound);
    }
}
