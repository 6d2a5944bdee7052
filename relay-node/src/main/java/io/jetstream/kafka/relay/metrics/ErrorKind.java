package io.jetstream.kafka.relay.metrics;

import java.util.Locale;

/**
 * Why the relay rejected input, dropped a connection or failed an operation: the {@code kind}
 * label of {@code jetstream_relay_errors_total}. An enum keeps the label's cardinality bounded;
 * add a constant (and document it) rather than passing free text.
 */
public enum ErrorKind {
    /** A length prefix above {@code frame.max.bytes}. */
    FRAME_TOO_LARGE,
    /** A frame that does not decode: bad magic, truncated field, impossible length. */
    MALFORMED_FRAME,
    /** A frame of a protocol version this relay does not speak. */
    UNSUPPORTED_VERSION,
    /**
     * A HELLO with a wrong or missing token for its role, or, for a role bound to certificate
     * identities, without a matching client certificate.
     */
    AUTHENTICATION_FAILED,
    /**
     * A HELLO for a stream not listed in {@code streams}. The peer is answered exactly as for a
     * wrong token ({@code ERROR(AUTHENTICATION_FAILED)}), so only the operator sees the difference.
     */
    UNKNOWN_STREAM,
    /** A well-formed frame not allowed now: anything before HELLO, a frame the peer's role may not send. */
    UNEXPECTED_FRAME,
    /** An authenticated peer sending or subscribing to a stream other than the one it authenticated for. */
    NOT_AUTHORIZED,
    /** A batch whose payload fails its CRC32C at the ingress, or that cannot be routed as sent; nacked, not forwarded. */
    MALFORMED_BATCH,
    /** A batch for a destination this relay has no route to. */
    UNKNOWN_DESTINATION,
    /**
     * Reading from a connection paused because {@code buffer.max.bytes} or the per-connection limit
     * was reached (backpressure: the batch waits, nothing is dropped).
     */
    BUFFER_FULL,
    /**
     * A subscription closed or refused because a newer instance of the same destination-site task holds
     * its share (a task instance left over from a stop that timed out).
     */
    SUPERSEDED,
    /**
     * A SUBSCRIBE refused ({@code ERROR(NOT_AUTHORIZED)}) because its epoch is more than
     * {@code subscribe.epoch.max.ahead.ms} ahead of this relay's clock: an epoch from the future would
     * hold the share against every restarted task.
     */
    EPOCH_AHEAD,
    /** A connection closed after {@code idle.timeout.ms} without input. */
    IDLE_TIMEOUT,
    /** A forwarded batch not acknowledged within {@code ack.timeout.ms}. */
    ACK_TIMEOUT,
    /** An ACK for no batch this relay holds (late after a timeout, or bogus); dropped. */
    UNKNOWN_ACK,
    /** An ACK or NACK that could not be relayed because the upstream connection had closed. */
    ACK_UNDELIVERABLE,
    /** A TLS handshake that failed (untrusted or missing certificate, protocol mismatch). */
    TLS_HANDSHAKE,
    /** A connection to a next-hop relay that could not be opened. */
    CONNECT_FAILED,
    /** An I/O error on an established connection (reset by peer, broken pipe). */
    IO,
    /** A connection that had not completed its handshake (TLS and HELLO) within {@code handshake.timeout.ms}; closed. */
    HANDSHAKE_TIMEOUT,
    /**
     * A connection refused at accept, before TLS or any read: {@code handshake.pending.max} or
     * {@code handshake.pending.per.address.max} connections were already in their handshake.
     */
    CONNECTION_LIMIT,
    /**
     * A routed batch whose next hop is neither in this relay's routes nor in {@code next.hops.allowed};
     * nacked, and no connection is opened to it.
     */
    NEXT_HOP_NOT_ALLOWED,
    /**
     * A control frame this relay owed a peer that does not read what it is sent: a PONG or a receipt
     * not written because the connection's outbound buffer was above its high-water mark (both are
     * advisory: the peer measures, or waits for the answer that follows).
     */
    CONTROL_DROPPED,
    /**
     * A connection closed because its peer did not read: an acknowledgement was due while the
     * outbound buffer held more than twice its high-water mark. The peer's unanswered batches are
     * re-sent by it (after reconnecting or its acknowledgement timeout); nothing is lost.
     */
    SLOW_READER,
    /**
     * An admin (HTTP) connection closed as soon as it was accepted, before any read:
     * {@code admin.connections.max} admin connections were already open.
     */
    ADMIN_CONNECTION_LIMIT,
    /**
     * An admin connection closed because a request was not read completely within
     * {@code admin.request.timeout.ms} of the accept or of the previous request (a slow or stalled
     * client; bytes trickled in do not extend the deadline).
     */
    ADMIN_REQUEST_TIMEOUT,
    /** A data connection accepted while no data-path handlers are installed. */
    DATA_PATH_UNAVAILABLE,
    /** A bug: an exception no handler expected. */
    INTERNAL;

    /** The label value: the constant's name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
