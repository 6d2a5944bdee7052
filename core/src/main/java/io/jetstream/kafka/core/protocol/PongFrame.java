package io.jetstream.kafka.core.protocol;

/** Answer to a {@link PingFrame}, echoing its fields. */
public record PongFrame(long nonce, long sentAtNanos) implements Frame {

    /** Round-trip time, given the PING sender's current {@code System.nanoTime()}. */
    public long rttNanos(long nowNanos) {
        return nowNanos - sentAtNanos;
    }

    @Override
    public FrameType type() {
        return FrameType.PONG;
    }
}
