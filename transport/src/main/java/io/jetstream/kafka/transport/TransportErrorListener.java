package io.jetstream.kafka.transport;

import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.channel.Channel;

/**
 * Told about every input a {@link FrameDecoderHandler} rejects, before the connection is closed, so
 * that the owner can count it by {@link ProtocolException#kind()} (a relay exports the kinds as
 * metric labels) and log it with the peer.
 *
 * <p>Called on the channel's event loop; implementations must be quick and must not throw.
 */
@FunctionalInterface
public interface TransportErrorListener {

    /** A listener that ignores every error. */
    TransportErrorListener IGNORE = (channel, error) -> { };

    /**
     * @param channel the connection the bad input came from; it is closing
     * @param error what was wrong; {@code TRUNCATED} also when the peer closed in the middle of a frame
     */
    void onProtocolError(Channel channel, ProtocolException error);
}
