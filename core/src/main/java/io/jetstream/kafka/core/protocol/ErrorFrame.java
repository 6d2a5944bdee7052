package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.util.Objects;

/**
 * Reports a connection-level failure; the sender of an ERROR closes the connection after flushing
 * it. Batch-level failures are NACKs, not errors.
 *
 * @param code what went wrong
 * @param message detail for the peer's logs (no secrets), possibly empty
 */
public record ErrorFrame(ErrorCode code, String message) implements Frame {

    public ErrorFrame {
        Objects.requireNonNull(code, "code");
        WireStrings.check(message, "message");
    }

    /** An error whose message is cut to 1024 chars. */
    public static ErrorFrame of(ErrorCode code, String message) {
        return new ErrorFrame(code, WireStrings.truncate(message));
    }

    /** The ERROR a node sends after failing to decode its peer's input. */
    public static ErrorFrame of(ProtocolException e) {
        boolean namesSupportedVersions = e.kind() != ProtocolException.Kind.UNSUPPORTED_VERSION
                || e.getMessage().contains("supported:");
        String message = namesSupportedVersions ? e.getMessage()
                : e.getMessage() + " (supported: " + ProtocolVersion.supportedRange() + ")";
        return of(ErrorCode.forKind(e.kind()), message);
    }

    @Override
    public FrameType type() {
        return FrameType.ERROR;
    }
}
