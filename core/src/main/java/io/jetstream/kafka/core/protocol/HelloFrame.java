package io.jetstream.kafka.core.protocol;

import java.util.Objects;

/**
 * First frame on every connection, from the connecting side. Answered by {@link HelloOkFrame} or by
 * an {@link ErrorFrame} and a close. The version is checked before anything else is read.
 *
 * @param version protocol version the client speaks ({@link ProtocolVersion#CURRENT})
 * @param role what the client is
 * @param flags {@code uint16} bit set: {@link #FLAG_RECEIPTS}, {@link #FLAG_MACS}; other bits are reserved
 *     (zero) and ignored
 * @param nodeId stable id of the client node (for example {@code connect-a/jetstream-source-3})
 * @param streamId the replication stream the connection serves; empty for relay-to-relay
 *     connections, which carry frames of many streams
 * @param authToken shared-secret or bearer token checked by the relay; empty when auth is off.
 *     Never printed by {@link #toString()}.
 */
public record HelloFrame(int version, PeerRole role, int flags, String nodeId, String streamId, String authToken)
        implements Frame {

    /**
     * The client wants receipts ({@link AckStatus#RECEIVED} ACKs) for the batches it sends, besides
     * their answers. Peers that do not set it never get one.
     */
    public static final int FLAG_RECEIPTS = 1;

    /**
     * The client's BATCH, TOPIC_METADATA and ACK frames have a {@code mac} field, and it takes them
     * so, if the accepting side sets the same bit in its HELLO_OK's flags: from then on both directions
     * of the connection use these layouts ({@link FrameMac}, {@code docs/protocol.md}). A peer
     * that does not know the flag ignores it and answers without it; the connection then keeps the
     * layouts without the field. A client that sets it sends none of those frames before HELLO_OK.
     */
    public static final int FLAG_MACS = 2;

    public HelloFrame {
        WireStrings.checkUint16(version, "version");
        Objects.requireNonNull(role, "role");
        WireStrings.checkUint16(flags, "flags");
        WireStrings.checkNotEmpty(nodeId, "nodeId");
        WireStrings.check(streamId, "streamId");
        WireStrings.check(authToken, "authToken");
    }

    /** A HELLO at the current version with no flags. */
    public static HelloFrame of(PeerRole role, String nodeId, String streamId, String authToken) {
        return new HelloFrame(ProtocolVersion.CURRENT, role, 0, nodeId, streamId, authToken);
    }

    /** This HELLO with {@link #FLAG_RECEIPTS} set. */
    public HelloFrame withReceipts() {
        return new HelloFrame(version, role, flags | FLAG_RECEIPTS, nodeId, streamId, authToken);
    }

    /** This HELLO with {@link #FLAG_MACS} set. */
    public HelloFrame withMacs() {
        return new HelloFrame(version, role, flags | FLAG_MACS, nodeId, streamId, authToken);
    }

    /** Whether the client offers the layouts with a {@code mac} field ({@link #FLAG_MACS}). */
    public boolean offersMacs() {
        return (flags & FLAG_MACS) != 0;
    }

    /** Whether the client asked for receipts ({@link #FLAG_RECEIPTS}). */
    public boolean wantsReceipts() {
        return (flags & FLAG_RECEIPTS) != 0;
    }

    @Override
    public FrameType type() {
        return FrameType.HELLO;
    }

    @Override
    public String toString() {
        return "HelloFrame[version=" + version + ", role=" + role + ", flags=" + flags + ", nodeId=" + nodeId
                + ", streamId=" + streamId + ", authToken=" + (authToken.isEmpty() ? "<none>" : "<redacted>") + "]";
    }
}
