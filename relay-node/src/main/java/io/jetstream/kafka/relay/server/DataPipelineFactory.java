package io.jetstream.kafka.relay.server;

import io.netty.channel.Channel;

/**
 * The seam where the data path (frame codecs and handlers) plugs into the relay.
 *
 * <p>{@link RelayServerInitializer} builds the transport part of every accepted data connection
 * (TLS, idle detection, flush consolidation, connection-role accounting) and then calls
 * {@link #initChannel}, which adds the frame handlers with {@code pipeline.addLast(...)}. Outgoing
 * connections to next-hop relays get the same transport from {@link PeerConnector#connect}, whose
 * caller adds the handlers for that direction. A catch-all handler named
 * {@link RelayServerInitializer#UNHANDLED} is appended after them; handlers added later (e.g.
 * after the handshake) go before it: {@code pipeline.addBefore(RelayServerInitializer.UNHANDLED, ...)}.
 *
 * <h2>What the transport guarantees the handlers</h2>
 * <ul>
 *   <li>{@code AUTO_READ} is off: nothing is read until a handler calls {@code ctx.read()}. Read
 *       again only when the previous batch has been taken (buffer reserved in
 *       {@link DataPipelineContext#relayBuffer()}) and the channel it goes to is writable: that is
 *       the relay's backpressure. The write-buffer water marks come from
 *       {@code buffer.max.bytes.per.connection} (high) and half of it (low).</li>
 *   <li>{@code IdleStateEvent}s arrive as user events: {@code WRITER_IDLE} after
 *       {@code heartbeat.interval.ms} without writes (send a heartbeat), {@code READER_IDLE} after
 *       {@code idle.timeout.ms} without reads. A {@code READER_IDLE} event the handlers do not
 *       consume closes the connection (counted as {@code idle_timeout}).</li>
 *   <li>{@link DrainStartedEvent} arrives as a user event when a graceful shutdown begins.</li>
 *   <li>Exceptions and messages that reach the end of the pipeline are counted, released and the
 *       connection is closed: a bug cannot leak buffers or keep a broken connection open.</li>
 *   <li>Every call happens on the channel's event loop. Implementations must be thread-safe (one
 *       factory serves all channels) and must not block.</li>
 * </ul>
 *
 * <p>Frame size must be bounded with {@link DataPipelineContext#config()}{@code .frameMaxBytes()}
 * (e.g. in a {@code LengthFieldBasedFrameDecoder}), errors counted through
 * {@link DataPipelineContext#metrics()}, and a connection's role reported with
 * {@link ConnectionCounter#assign} once the handshake has identified the peer.
 */
public interface DataPipelineFactory {

    /**
     * Adds the data-path handlers to a connection accepted on the data listener.
     *
     * @param channel the accepted channel; its pipeline already holds the transport handlers
     * @param context the relay's configuration, metrics, buffer budget and outgoing connector
     */
    void initChannel(Channel channel, DataPipelineContext context) throws Exception;

    /**
     * Called once by {@link RelayServer#start()} before the listeners bind, with the context every
     * channel will get: a data path opens its long-lived resources here (connections to configured
     * next hops, timers). An exception aborts the start.
     */
    default void start(DataPipelineContext context) {
    }

    /**
     * Called once when the server stops, after the drain and before connections are closed (also
     * after a failed start, possibly without {@link #start}): release what {@link #start} opened.
     * Must not block for long and must not throw.
     */
    default void close() {
    }

    /** A short description for the start-up log, e.g. {@code "JetStream protocol v1"}. */
    default String description() {
        return getClass().getSimpleName();
    }
}
