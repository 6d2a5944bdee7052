package io.jetstream.kafka.core.protocol;

/**
 * Accepts a {@link HelloFrame}.
 *
 * @param version the version both sides use from now on
 * @param flags {@code uint16} bit set: {@link HelloFrame#FLAG_MACS} when the accepting side takes the
 *     client's offer of MAC fields (the same bit as in HELLO); other bits are reserved (zero) and ignored
 * @param nodeId id of the accepting node
 * @param maxFrameBytes the largest frame length this node accepts, so the client sizes batches to fit
 */
public record HelloOkFrame(int version, int flags, String nodeId, int maxFrameBytes) implements Frame {

    public HelloOkFrame {
        WireStrings.checkUint16(version, "version");
        WireStrings.checkUint16(flags, "flags");
        WireStrings.checkNotEmpty(nodeId, "nodeId");
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " must be positive");
        }
    }

    public static HelloOkFrame of(String nodeId, int maxFrameBytes) {
        return new HelloOkFrame(ProtocolVersion.CURRENT, 0, nodeId, maxFrameBytes);
    }

    /** The answer to {@code hello} from a node that knows every flag of this build: it takes what the client offers. */
    public static HelloOkFrame answering(HelloFrame hello, String nodeId, int maxFrameBytes) {
        return new HelloOkFrame(ProtocolVersion.CURRENT, hello.flags() & HelloFrame.FLAG_MACS, nodeId, maxFrameBytes);
    }

    /** Whether the connection's BATCH, TOPIC_METADATA and ACK frames have the {@code mac} field from now on. */
    public boolean macs() {
        return (flags & HelloFrame.FLAG_MACS) != 0;
    }

    @Override
    public FrameType type() {
        return FrameType.HELLO_OK;
    }
}
