package io.jetstream.kafka.core.bench;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
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
 * What a relay pays per forwarded BATCH: decode the header from the received bytes (payload as a
 * retained slice), advance the hop, re-encode the header around the same payload, release. The
 * payload size should not matter (no copy); the parameter proves it. Run: see docs/bench/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-Dio.netty.leakDetection.level=disabled"})
public class FrameCodecBenchmark {

    @Param({"1024", "1048576"})
    public int payloadBytes;

    private final FrameCodec codec = new FrameCodec();
    private final PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private ByteBuf received;

    @Setup(Level.Trial)
    public void setUp() {
        RoutingHeader routing = RoutingHeader.unrouted("stream-1", 123456789L, "connect-a/jetstream-source-3", "site-b")
                .withPath(List.of("relay-a1.site-a:7400", "relay-c1.site-c:7400", "relay-b1.site-b:7400"));
        BatchHeader header = new BatchHeader(routing, "sensor-readings", 3, 999, 1000, 1255, 256,
                1_700_000_000_000L, CompressionCodec.ZSTD, 300_000, 0x1234abcd);
        BatchFrame frame = new BatchFrame(header, alloc.directBuffer(payloadBytes).writeZero(payloadBytes));
        received = alloc.directBuffer();
        codec.encode(frame, received);
        frame.release();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        received.release();
    }

    @Benchmark
    public int forwardOneHop() {
        BatchFrame frame = (BatchFrame) codec.decode(received.duplicate());
        ByteBuf out = codec.encode(frame.withRouting(frame.header().routing().advance()), alloc);
        int bytes = out.readableBytes();
        out.release();
        frame.release();
        return bytes;
    }
}
