package io.jetstream.kafka.core.bench;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What end-to-end integrity costs on the hot path: the source's MAC of a batch (header plus the
 * payload read in place from a pooled direct buffer, as the sender holds it) and the destination's
 * check of the same; the destination's MAC of an ACK. Divide {@code macBatch} by
 * {@code payloadBytes} for ns per payload byte. Run: see docs/bench/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-Dio.netty.leakDetection.level=disabled"})
public class FrameSignerBenchmark {

    @Param({"1024", "262144"})
    public int payloadBytes;

    private final FrameSigner signer = FrameSigner.ofSecret("a-benchmark-integrity-key-of-48-bytes-0123456789");
    private BatchHeader header;
    private ByteBuf payload;
    private AckFrame ack;

    @Setup(Level.Trial)
    public void setUp() {
        RoutingHeader routing = RoutingHeader.unrouted("stream-1", 123456789L, "connect-a/jetstream-source-3",
                "site-b");
        header = new BatchHeader(routing, "sensor-readings", 3, 999, 1000, 1255, 256, 1_700_000_000_000L,
                CompressionCodec.ZSTD, 300_000, 0x1234abcd);
        byte[] bytes = new byte[payloadBytes];
        ThreadLocalRandom.current().nextBytes(bytes);
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(payloadBytes).writeBytes(bytes);
        header = header.withMac(signer.mac(header, payload));
        ack = AckFrame.ok(header);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        payload.release();
    }

    @Benchmark
    public FrameMac macBatch() {
        return signer.mac(header, payload);
    }

    @Benchmark
    public boolean verifyBatch() {
        return header.mac().matches(signer.mac(header, payload).bytes());
    }

    @Benchmark
    public AckFrame signAck() {
        return signer.sign(ack);
    }
}
