package io.jetstream.kafka.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.wire.FrameLength;
import io.netty.handler.ssl.SslContext;
import org.apache.kafka.common.utils.ExponentialBackoff;

/**
 * Everything a {@link PeerClient} needs to reach one relay. Build it with {@link #builder} (defaults
 * below). Transport knows no configuration keys: the connectors' shared module (connect-common,
 * {@code RelayClients}) builds these from their relay settings, the relay from its own.
 *
 * @param remote              the relay's data address; an unresolved address is resolved at each
 *                            connection attempt (DNS changes are followed)
 * @param role                what this client is: SENDER, RELAY or SUBSCRIBER
 * @param nodeId              this node's stable id, announced in HELLO
 * @param streamId            the stream the connection serves
 * @param token               the stream's secret, sent in HELLO (never printed)
 * @param sslContext          client TLS ({@link ClientTls}); null for plaintext
 * @param connectTimeout      bound on TCP connect and, separately, on the handshake (HELLO to
 *                            HELLO_OK, and SUBSCRIBE_OK for a subscriber)
 * @param heartbeatInterval   a PING is sent this often; a peer from which nothing was received for
 *                            three intervals is taken for dead and the connection is re-opened
 * @param reconnectBackoff    first wait before reconnecting; doubles (with jitter) per failure
 *                            ({@link #reconnectBackoffPolicy()})
 * @param reconnectBackoffMax cap of the wait
 * @param maxFrameBytes       largest frame accepted from or written to the relay
 * @param writeLowWaterMark   the channel turns writable again below this many queued bytes
 * @param writeHighWaterMark  the channel turns unwritable above this many queued bytes
 * @param subscription        the SUBSCRIBE sent after HELLO_OK; required for role SUBSCRIBER and
 *                            null otherwise
 * @param receipts            ask for receipts (HELLO flag {@code FLAG_RECEIPTS}): the relay then sends
 *                            a RECEIVED ack when a batch reaches its egress relay, before its answer;
 *                            the listener must tell them apart ({@code AckFrame.isReceipt()})
 * @param macs                offer the frame layouts with a {@code mac} field (HELLO flag
 *                            {@code FLAG_MACS}); used when the relay takes the offer in its HELLO_OK
 *                            ({@link PeerClient#macs()}), so that end-to-end MACs travel this hop
 * @param minPeerMaxFrameBytes the smallest frame limit accepted from the relay's HELLO_OK: a relay
 *                            announcing less is refused (the connection is closed and retried with
 *                            backoff, never used), so that nothing is sized to, or skipped because of,
 *                            a peer's claim below it. At least {@link FrameLength#MIN_MAX_FRAME_BYTES}
 *                            (the default) and at most {@code maxFrameBytes}
 */
public record PeerClientConfig(InetSocketAddress remote, PeerRole role, String nodeId, String streamId,
        String token, SslContext sslContext, Duration connectTimeout,
        Duration heartbeatInterval, Duration reconnectBackoff, Duration reconnectBackoffMax,
        int maxFrameBytes, int writeLowWaterMark, int writeHighWaterMark,
        SubscribeFrame subscription, boolean receipts, boolean macs, int minPeerMaxFrameBytes) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_RECONNECT_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_RECONNECT_BACKOFF_MAX = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_FRAME_BYTES = FrameLength.DEFAULT_MAX_FRAME_BYTES;
    public static final int DEFAULT_WRITE_LOW_WATER_MARK = 4 * 1024 * 1024;
    public static final int DEFAULT_WRITE_HIGH_WATER_MARK = 8 * 1024 * 1024;
    /**
     * Share of each reconnect wait that is random (plus or minus), so that many clients cut off at
     * once do not reconnect in lockstep.
     */
    public static final double RECONNECT_BACKOFF_JITTER = 0.2;

    public PeerClientConfig {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(token, "token");
        if (nodeId.isEmpty()) {
            throw new IllegalArgumentException("nodeId must not be empty");
        }
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(heartbeatInterval, "heartbeatInterval");
        requirePositive(reconnectBackoff, "reconnectBackoff");
        requirePositive(reconnectBackoffMax, "reconnectBackoffMax");
        if (reconnectBackoffMax.compareTo(reconnectBackoff) < 0) {
            throw new IllegalArgumentException("reconnectBackoffMax " + reconnectBackoffMax
                    + " is below reconnectBackoff " + reconnectBackoff);
        }
        FrameLength.checkMaxFrameBytes(maxFrameBytes);
        if (minPeerMaxFrameBytes < FrameLength.MIN_MAX_FRAME_BYTES || minPeerMaxFrameBytes > maxFrameBytes) {
            throw new IllegalArgumentException("minPeerMaxFrameBytes " + minPeerMaxFrameBytes + " must lie in "
                    + FrameLength.MIN_MAX_FRAME_BYTES + ".." + maxFrameBytes + " (maxFrameBytes)");
        }
        if (writeLowWaterMark < 0 || writeHighWaterMark < writeLowWaterMark || writeHighWaterMark == 0) {
            throw new IllegalArgumentException("water marks need 0 <= low <= high, high > 0; got low "
                    + writeLowWaterMark + ", high " + writeHighWaterMark);
        }
        if (receipts && role == PeerRole.SUBSCRIBER) {
            throw new IllegalArgumentException("receipts are for senders and relays, not for role SUBSCRIBER");
        }
        if ((role == PeerRole.SUBSCRIBER) != (subscription != null)) {
            throw new IllegalArgumentException("a subscription is required for role SUBSCRIBER and only for it (role "
                    + role + ", subscription " + subscription + ")");
        }
        if (subscription != null && !subscription.streamId().equals(streamId)) {
            throw new IllegalArgumentException("subscription stream " + subscription.streamId()
                    + " differs from the connection's stream " + streamId);
        }
    }

    /**
     * The waits between reconnection attempts, in nanoseconds: Kafka's {@link ExponentialBackoff}
     * doubling from {@code reconnectBackoff} per consecutive failure, with
     * {@value #RECONNECT_BACKOFF_JITTER} jitter either way, never above {@code reconnectBackoffMax}.
     * {@code backoff(attempts)} gives the wait after {@code attempts} consecutive failures.
     */
    public ExponentialBackoff reconnectBackoffPolicy() {
        return new ExponentialBackoff(reconnectBackoff.toNanos(), 2, reconnectBackoffMax.toNanos(),
                RECONNECT_BACKOFF_JITTER);
    }

    /**
     * A builder with the defaults: 10 s connect, 1 s heartbeat, 100 ms to 10 s backoff, 16 MiB frames,
     * 4/8 MiB water marks, plaintext, MAC fields offered.
     */
    public static Builder builder(InetSocketAddress remote, PeerRole role, String nodeId, String streamId, String token) {
        return new Builder(remote, role, nodeId, streamId, token);
    }

    /** Whether the connection is encrypted. */
    public boolean tls() {
        return sslContext != null;
    }

    @Override
    public String toString() {
        return "PeerClientConfig[remote=" + remote + ", role=" + role + ", nodeId=" + nodeId + ", streamId=" + streamId
                + ", token=" + (token.isEmpty() ? "<none>" : "<redacted>") + ", tls=" + tls() + ", connectTimeout="
                + connectTimeout + ", heartbeatInterval=" + heartbeatInterval + ", reconnectBackoff=" + reconnectBackoff
                + ".." + reconnectBackoffMax + ", maxFrameBytes=" + maxFrameBytes + ", writeWaterMarks="
                + writeLowWaterMark + "/" + writeHighWaterMark + ", subscription=" + subscription + ", receipts="
                + receipts + ", macs=" + macs + ", minPeerMaxFrameBytes=" + minPeerMaxFrameBytes + "]";
    }

    private static void requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /** Builds a {@link PeerClientConfig}; every setter is optional. */
    public static final class Builder {
        private final InetSocketAddress remote;
        private final PeerRole role;
        private final String nodeId;
        private final String streamId;
        private final String token;
        private SslContext sslContext;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration reconnectBackoff = DEFAULT_RECONNECT_BACKOFF;
        private Duration reconnectBackoffMax = DEFAULT_RECONNECT_BACKOFF_MAX;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private int writeLowWaterMark = DEFAULT_WRITE_LOW_WATER_MARK;
        private int writeHighWaterMark = DEFAULT_WRITE_HIGH_WATER_MARK;
        private SubscribeFrame subscription;
        private boolean receipts;
        private boolean macs = true;
        private int minPeerMaxFrameBytes = FrameLength.MIN_MAX_FRAME_BYTES;

        private Builder(InetSocketAddress remote, PeerRole role, String nodeId, String streamId, String token) {
            this.remote = remote;
            this.role = role;
            this.nodeId = nodeId;
            this.streamId = streamId;
            this.token = token;
        }

        /** @param sslContext client TLS, or null for plaintext */
        public Builder sslContext(SslContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder reconnectBackoff(Duration initial, Duration max) {
            this.reconnectBackoff = initial;
            this.reconnectBackoffMax = max;
            return this;
        }

        public Builder maxFrameBytes(int maxFrameBytes) {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        public Builder writeWaterMarks(int low, int high) {
            this.writeLowWaterMark = low;
            this.writeHighWaterMark = high;
            return this;
        }

        /** The share to subscribe to (role SUBSCRIBER only). */
        public Builder subscription(SubscribeFrame subscription) {
            this.subscription = subscription;
            return this;
        }

        /** Ask for receipts (see {@link PeerClientConfig#receipts()}); off by default. */
        public Builder receipts(boolean receipts) {
            this.receipts = receipts;
            return this;
        }

        /**
         * Offer the frame layouts with a {@code mac} field (see {@link PeerClientConfig#macs()}); on by
         * default. Off only to stand in for a peer built before them.
         */
        public Builder macs(boolean macs) {
            this.macs = macs;
            return this;
        }

        /**
         * The smallest frame limit a relay may announce (see {@link PeerClientConfig#minPeerMaxFrameBytes()});
         * {@link FrameLength#MIN_MAX_FRAME_BYTES} by default.
         */
        public Builder minPeerMaxFrameBytes(int minPeerMaxFrameBytes) {
            this.minPeerMaxFrameBytes = minPeerMaxFrameBytes;
            return this;
        }

        public PeerClientConfig build() {
            return new PeerClientConfig(remote, role, nodeId, streamId, token, sslContext, connectTimeout,
                    heartbeatInterval, reconnectBackoff, reconnectBackoffMax, maxFrameBytes, writeLowWaterMark,
                    writeHighWaterMark, subscription, receipts, macs, minPeerMaxFrameBytes);
        }
    }
}
