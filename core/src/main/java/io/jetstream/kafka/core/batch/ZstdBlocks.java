package io.jetstream.kafka.core.batch;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;

/**
 * Zstandard with contexts kept from one batch to the next: one call per batch on a context made
 * once, where a stream ({@code Compression.zstd().wrapForOutput}) builds and frees a native
 * context per batch. That construction, not the compression, is what a small batch costs: with
 * many partitions at a steady rate each batch holds a record or two, and a stream per batch cost
 * about 360 µs to compress and 75 µs to decompress a 1 KiB record (JMH, {@code BatchCodecBenchmark},
 * {@code batchDataBytes=1024}).
 *
 * <p>The output is a standard zstd frame (with its content size, without a checksum: the batch has
 * its CRC32C), which Kafka's zstd stream reads too, so a payload written either way reads either
 * way. Compression level 3, Kafka's default.
 *
 * <p>Not thread-safe; {@link #close()} frees the native contexts (made on first use), and any use
 * after it is an {@link IllegalStateException}, never a corrupt-payload error.
 */
final class ZstdBlocks implements AutoCloseable {

    /** Kafka's default zstd level ({@code CompressionType.ZSTD} in kafka-clients). */
    static final int LEVEL = 3;

    private ZstdCompressCtx compressCtx;
    private ZstdDecompressCtx decompressCtx;
    private byte[] out = new byte[0];
    private int compressedLength;
    private boolean closed;

    /**
     * Compresses {@code src[0..length)}.
     *
     * @return an array whose bytes {@code 0..}{@link #compressedLength()} are the frame; valid until
     *     the next call
     */
    byte[] compress(byte[] src, int length) {
        checkOpen();
        if (compressCtx == null) {
            compressCtx = new ZstdCompressCtx().setLevel(LEVEL).setChecksum(false).setContentSize(true);
        }
        int bound = (int) Math.min(Integer.MAX_VALUE - 16, Zstd.compressBound(length));
        if (out.length < bound) {
            out = new byte[Math.max(bound, 2 * out.length)];
        }
        compressedLength = compressCtx.compressByteArray(out, 0, out.length, src, 0, length);
        return out;
    }

    /** Length of the frame the last {@link #compress} returned. */
    int compressedLength() {
        return compressedLength;
    }

    /** Drops an output array grown past {@code retainedBytes} by a large batch. */
    void trim(int retainedBytes) {
        if (out.length > retainedBytes) {
            out = new byte[0];
        }
    }

    /**
     * Decompresses one frame {@code src[offset..offset+length)} into {@code dst[0..dstLength)}.
     *
     * @return the bytes produced
     * @throws ZstdException when the frame is corrupt or would produce more than {@code dstLength}
     *     bytes ({@link #tooSmall})
     */
    int decompress(byte[] dst, int dstLength, byte[] src, int offset, int length) {
        checkOpen();
        if (decompressCtx == null) {
            decompressCtx = new ZstdDecompressCtx();
        }
        return decompressCtx.decompressByteArray(dst, 0, dstLength, src, offset, length);
    }

    /** Whether a {@link ZstdException} says the output did not fit: more bytes than declared. */
    static boolean tooSmall(ZstdException e) {
        return e.getErrorCode() == Zstd.errDstSizeTooSmall();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("zstd contexts closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        if (compressCtx != null) {
            compressCtx.close();
            compressCtx = null;
        }
        if (decompressCtx != null) {
            decompressCtx.close();
            decompressCtx = null;
        }
    }
}
