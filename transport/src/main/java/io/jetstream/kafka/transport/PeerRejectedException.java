package io.jetstream.kafka.transport;

import java.io.IOException;
import java.util.Objects;

import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;

/**
 * The peer sent an ERROR frame (for example {@code AUTHENTICATION_FAILED} at handshake) and the
 * connection was closed. Passed to {@link PeerClient.Listener#onDisconnected} as the cause.
 */
public final class PeerRejectedException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient ErrorFrame error;

    public PeerRejectedException(String peer, ErrorFrame error) {
        super(peer + " closed the connection with ERROR " + error.code() + ": " + error.message());
        this.error = Objects.requireNonNull(error, "error");
    }

    public ErrorFrame error() {
        return error;
    }

    public ErrorCode code() {
        return error.code();
    }
}
