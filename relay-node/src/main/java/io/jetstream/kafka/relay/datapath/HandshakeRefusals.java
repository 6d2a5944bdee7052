package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.Objects;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a HELLO that does not authenticate, telling the peer nothing it did not know: whether the
 * stream is unknown, the token wrong (the stream's, or a role's own), or the certificate not bound
 * to the role, the answer is the same {@code ERROR(AUTHENTICATION_FAILED)} with the same
 * {@value #MESSAGE} message. So a stranger learns neither which streams a relay serves nor which
 * roles have tokens of their own.
 *
 * <p>The operator gets the detail: counted by kind ({@code unknown_stream},
 * {@code authentication_failed}) and logged at WARN with the peer's address and what it claimed,
 * at most once per {@value #LOG_INTERVAL_SECONDS} s for the whole relay (a stranger retrying in a
 * loop must not fill the log; each logged line says how many refusals were not). One per relay;
 * thread-safe.
 */
final class HandshakeRefusals {

    /** The one message an unauthenticated peer is answered with. */
    static final String MESSAGE = "authentication failed";
    static final long LOG_INTERVAL_SECONDS = 10;
    /** Longest piece of a peer-supplied string put in the log. */
    private static final int LOGGED_CHARS_MAX = 64;

    private static final Logger log = LoggerFactory.getLogger(HandshakeRefusals.class);

    private final RelayMetrics metrics;
    private final WarningThrottle throttle;

    HandshakeRefusals(RelayMetrics metrics, Clock clock) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.throttle = new WarningThrottle(Duration.ofSeconds(LOG_INTERVAL_SECONDS), clock);
    }

    /**
     * Counts the refusal as {@code kind}, logs {@code detail} (throttled), answers the uniform
     * error and closes the connection.
     */
    void refuse(ChannelHandlerContext ctx, ErrorKind kind, HelloFrame hello, String detail) {
        long unlogged = throttle.admit();
        if (unlogged != WarningThrottle.QUIET) {
            log.warn("Refused the handshake of {} ({}): {}; it claimed node id '{}', role {}, stream '{}'{}",
                    ctx.channel().remoteAddress(), kind.label(), detail, printable(hello.nodeId()), hello.role(),
                    printable(hello.streamId()), unlogged == 0 ? ""
                            : " (" + unlogged + " more refused handshakes not logged since the last such line;"
                            + " counted in jetstream_relay_errors_total)");
        }
        Rejections.reject(ctx, metrics, kind, ErrorCode.AUTHENTICATION_FAILED, MESSAGE);
    }

    /** A peer-supplied string made safe for one log line: control characters escaped, length bounded. */
    static String printable(String fromPeer) {
        if (fromPeer == null) {
            return "(none)";
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        for (; i < fromPeer.length() && out.length() < LOGGED_CHARS_MAX; i++) {
            char c = fromPeer.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return i < fromPeer.length() ? out + "..." : out.toString();
    }
}
