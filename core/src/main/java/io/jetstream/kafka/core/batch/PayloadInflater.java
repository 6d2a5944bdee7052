package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.batch.BatchFormat.KAFKA_MAGIC_V2;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.DECOMPRESSION_FAILED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.LIMIT_EXCEEDED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;

import com.github.luben.zstd.ZstdException;
import io.jetstream.kafka.core.wire.ProtocolException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.utils.BufferSupplier;

/**
 * Decompresses payloads into a reusable array while enforcing the declared uncompressed size: the
 * decompression-bomb guard.
 *
 * <ul>
 *   <li>The declared size has already been checked against the limit by the caller.
 *   <li>The output array grows with the data actually produced (starting from a few times the
 *       compressed size), never straight to the declared size, so a lying header costs no memory.
 *   <li>Producing one byte more than declared is {@code LIMIT_EXCEEDED}; fewer is {@code MALFORMED}.
 *   <li>Snappy framing is pre-scanned ({@link SnappyFraming}) because snappy-java sizes its buffers
 *       from lengths inside the stream.
 * </ul>
 * Arrays above {@link #RETAINED_BYTES} are not kept between batches. Not thread-safe.
 */
final class PayloadInflater implements AutoCloseable {

    private static final int MIN_INITIAL = 64 * 1024;
    static final int RETAINED_BYTES = 8 * 1024 * 1024;

    private final BufferSupplier bufferSupplier = BufferSupplier.create();
    private byte[] scratch = new byte[MIN_INITIAL];
    private byte[] compressedCopy = new byte[0];
    private final ZstdBlocks zstd = new ZstdBlocks();

    /**
     * Decompresses {@code payload} (not moved) into an internal array and returns it; bytes
     * {@code 0..declaredSize} are the result. Valid until the next call or {@link #trim()}.
     */
    byte[] inflate(CompressionCodec codec, ByteBuffer payload, int declaredSize) {
        if (codec == CompressionCodec.SNAPPY) {
            SnappyFraming.check(payload, declaredSize);
        }
        long initial = Math.max(MIN_INITIAL, 4L * payload.remaining());
        if (codec == CompressionCodec.ZSTD && declaredSize < initial) {
            // The whole declared size is no more than the stream's first step would take: one call
            // on a kept context instead of a stream per batch (see ZstdBlocks).
            return inflateZstd(payload, declaredSize);
        }
        byte[] out = ensure(0, (int) Math.min(declaredSize, initial));
        int produced = 0;
        try (InputStream in = codec.compression().wrapForInput(payload.duplicate(), KAFKA_MAGIC_V2, bufferSupplier)) {
            while (true) {
                int window = Math.min(out.length, declaredSize);
                if (produced == window) {
                    if (window == declaredSize) {
                        if (in.read() != -1) {
                            throw new ProtocolException(LIMIT_EXCEEDED, codec + " payload decompresses to more than"
                                    + " the declared " + declaredSize + " bytes");
                        }
                        break;
                    }
                    out = ensure(produced, (int) Math.min(declaredSize, 2L * out.length));
                    continue;
                }
                int read = in.read(out, produced, window - produced);
                if (read < 0) {
                    break;
                }
                produced += read;
            }
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new ProtocolException(DECOMPRESSION_FAILED, codec + " payload of " + payload.remaining()
                    + " bytes is corrupt: " + e.getMessage(), e);
        } catch (Error e) {
            // snappy-java reports some corrupt input as org.xerial.snappy.SnappyError (an Error);
            // anything else (OutOfMemoryError, ...) is not about the input and must propagate.
            if (e.getClass().getName().startsWith("org.xerial.snappy.")) {
                throw new ProtocolException(DECOMPRESSION_FAILED, codec + " payload is corrupt: " + e.getMessage(), e);
            }
            throw e;
        }
        if (produced != declaredSize) {
            throw new ProtocolException(MALFORMED,
                    codec + " payload decompresses to " + produced + " bytes, the header declares " + declaredSize);
        }
        return out;
    }

    /**
     * One frame into {@code scratch[0..declaredSize)}, with room for one byte more: a frame that
     * produces more than declared is {@code LIMIT_EXCEEDED}, fewer {@code MALFORMED}.
     */
    private byte[] inflateZstd(ByteBuffer payload, int declaredSize) {
        byte[] src;
        int offset;
        int length = payload.remaining();
        if (payload.hasArray()) {
            src = payload.array();
            offset = payload.arrayOffset() + payload.position();
        } else {
            if (compressedCopy.length < length) {
                compressedCopy = new byte[Math.max(length, 2 * compressedCopy.length)];
            }
            payload.duplicate().get(compressedCopy, 0, length);
            src = compressedCopy;
            offset = 0;
        }
        byte[] out = ensure(0, declaredSize + 1);
        int produced;
        try {
            produced = zstd.decompress(out, declaredSize + 1, src, offset, length);
        } catch (ZstdException e) {
            if (ZstdBlocks.tooSmall(e)) {
                throw new ProtocolException(LIMIT_EXCEEDED, "ZSTD payload decompresses to more than the declared "
                        + declaredSize + " bytes");
            }
            throw new ProtocolException(DECOMPRESSION_FAILED, "ZSTD payload of " + length + " bytes is corrupt: "
                    + e.getMessage(), e);
        }
        if (produced > declaredSize) {
            throw new ProtocolException(LIMIT_EXCEEDED, "ZSTD payload decompresses to more than the declared "
                    + declaredSize + " bytes");
        }
        if (produced != declaredSize) {
            throw new ProtocolException(MALFORMED,
                    "ZSTD payload decompresses to " + produced + " bytes, the header declares " + declaredSize);
        }
        return out;
    }

    /** Drops an oversized scratch array after a large batch. */
    void trim() {
        if (scratch.length > RETAINED_BYTES) {
            scratch = new byte[MIN_INITIAL];
        }
        if (compressedCopy.length > RETAINED_BYTES) {
            compressedCopy = new byte[0];
        }
    }

    /** Frees the native decompression context, if one was made. */
    @Override
    public void close() {
        zstd.close();
    }

    private byte[] ensure(int keep, int capacity) {
        if (scratch.length < capacity) {
            byte[] bigger = new byte[capacity];
            System.arraycopy(scratch, 0, bigger, 0, keep);
            scratch = bigger;
        }
        return scratch;
    }
}
