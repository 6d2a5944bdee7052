package io.jetstream.kafka.core.protocol;

/**
 * Accepts a {@link HelloFrame}.
 *
 * @param version the version both sides use from now on
 * @param flags reserved, {@code uint16}; zero in version 1
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

    @Override
    public FrameType type() {
        return FrameType.HELLO_OK;
    }
}
