package io.jetstream.kafka.core.batch;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C of batch payloads as sent (after compression). The JDK implementation uses the CPU's
 * CRC32C instructions, so checking a payload costs far less than decoding it; an ingress relay may
 * check it to reject a corrupt sender early, the destination always checks it.
 */
public final class PayloadChecksum {

    private PayloadChecksum() {
    }

    /** CRC32C of {@code payload}'s readable bytes; the buffer's position is not moved. */
    public static int crc32c(ByteBuffer payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        return (int) crc.getValue();
    }

    /**
     * Checks the payload against its declared checksum.
     *
     * @throws ProtocolException {@link ProtocolException.Kind#BAD_CRC} on mismatch
     */
    public static void verify(EncodedBatch batch) {
        int actual = crc32c(batch.payload());
        if (actual != batch.crc32c()) {
            throw new ProtocolException(ProtocolException.Kind.BAD_CRC,
                    "payload of " + batch.topic() + "-" + batch.partition() + " offsets " + batch.firstOffset() + ".."
                            + batch.lastOffset() + " has CRC32C " + hex(actual) + ", header declares "
                            + hex(batch.crc32c()));
        }
    }

    private static String hex(int crc) {
        return String.format("%08x", crc);
    }
}
