package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.ReferenceCountUtil;

/**
 * Writes of control frames that a peer's own behaviour triggers (a PONG for each PING, a receipt and
 * an ACK for each batch), paced by the peer's reading so that a peer which sends but never reads
 * cannot make the relay queue answers without bound:
 * <ul>
 *   <li>advisory frames (PONG, receipt) are written only while the connection is writable (its
 *       outbound buffer below the high-water mark), else dropped and counted as
 *       {@code control_dropped}: the peer only measures with them, or waits for the answer that
 *       follows;
 *   <li>owed frames (ACK, NACK) are written, unless the outbound buffer already holds more than
 *       twice its high-water mark: then the peer is not reading, and the connection is closed and
 *       counted as {@code slow_reader}. Its sender re-sends what it has not heard back about, and
 *       the destination drops what it already wrote.
 * </ul>
 * Any thread; the channel's own write path orders the writes.
 */
final class ControlWrites {

    private ControlWrites() {
    }

    /** Writes an advisory frame if the peer keeps up; returns whether it was written. */
    static boolean advisory(Channel channel, Frame frame, RelayMetrics metrics) {
        if (!channel.isActive()) {
            ReferenceCountUtil.release(frame);
            return false;
        }
        if (!channel.isWritable()) {
            ReferenceCountUtil.release(frame);
            metrics.errors(ErrorKind.CONTROL_DROPPED).inc();
            return false;
        }
        channel.writeAndFlush(frame);
        return true;
    }

    /**
     * Writes a frame the peer is owed, or closes a connection whose peer does not read; returns
     * whether it was written.
     */
    static boolean owed(Channel channel, Frame frame, RelayMetrics metrics) {
        if (!channel.isWritable() && pendingBytes(channel) > 2L * channel.config().getWriteBufferHighWaterMark()) {
            ReferenceCountUtil.release(frame);
            metrics.errors(ErrorKind.SLOW_READER).inc();
            channel.close();
            return false;
        }
        channel.writeAndFlush(frame);
        return true;
    }

    /** Bytes queued for the socket and not yet written. */
    static long pendingBytes(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }
}
