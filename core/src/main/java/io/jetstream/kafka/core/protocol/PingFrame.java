package io.jetstream.kafka.core.protocol;

/**
 * Heartbeat and round-trip probe; either side may send it at any time after HELLO. The receiver
 * answers with {@link #pong()} at once.
 *
 * @param nonce matches the PONG to the PING
 * @param sentAtNanos the sender's {@code System.nanoTime()} (meaningful to the sender only)
 */
public record PingFrame(long nonce, long sentAtNanos) implements Frame {

    /** The answer, echoing both fields. */
    public PongFrame pong() {
        return new PongFrame(nonce, sentAtNanos);
    }

    @Override
    public FrameType type() {
        return FrameType.PING;
    }
}
