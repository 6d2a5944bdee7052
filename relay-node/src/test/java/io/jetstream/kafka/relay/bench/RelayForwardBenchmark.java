package io.jetstream.kafka.relay.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.datapath.ProtocolDataPipelineFactory;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.RelayServer;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Relay forwarding over real loopback sockets: a sender ({@link PeerClient}, SENDER) → relay
 * {@code bench-a1} (ingress, one route) → relay {@code bench-b1} (egress) → a subscriber
 * ({@link PeerClient}, SUBSCRIBER) that acknowledges every batch; ACKs travel back to the sender.
 * Everything runs in the benchmark JVM; each relay has one I/O thread.
 *
 * <p>One operation = one batch sent, with at most {@code windowBytes} unacknowledged (the sender's
 * in-flight budget, as a connector task has). Payload MB/s = ops/s x {@code payloadBytes}. At the
 * end of each iteration the CPU time of the relays' threads and of the whole process is printed in
 * cores (CPU seconds per wall second): the relays' figure is what the target (>= 500 MB/s with
 * <= 1 core) is about; the process figure adds the sender, the subscriber and the kernel work
 * they cause.
 *
 * <p>The sender re-uses one encoded payload (a retained duplicate per batch, new id each time) so
 * that the benchmark measures the relays and the sockets, not batch encoding.
 *
 * <p>How to run, and the figures: {@code docs/bench/jmh.md} ("relay forwarding over sockets").
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Threads(1)
public class RelayForwardBenchmark {

    private static final String STREAM = "bench";
    private static final String TOKEN = "bench-token-0123456789";

    /** Payload bytes per batch (records of 1 KiB values). */
    @Param({"65536", "262144", "1048576"})
    public int payloadBytes;

    /** Most unacknowledged bytes the sender allows (like a connector task's in-flight budget). */
    @Param({"16777216"})
    public int windowBytes;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private EventLoopGroup clientLoops;
    private PeerClient sender;
    private Semaphore window;
    private ByteBuf payload;
    private BatchHeader header;
    private long nextId;
    private int permitsPerBatch;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long iterationStartNanos;
    private long relayCpuStart;
    private long processCpuStart;

    @Setup(Level.Trial)
    public void start() throws Exception {
        RelayServer egress = relay("bench-b1", "local");
        InetSocketAddress b1 = egress.boundAddresses().orElseThrow().data();
        RelayServer ingress = relay("bench-a1", "127.0.0.1:" + b1.getPort());
        InetSocketAddress a1 = ingress.boundAddresses().orElseThrow().data();

        clientLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        PeerClient subscriber = new PeerClient(clientConfig(b1, PeerRole.SUBSCRIBER)
                .subscription(new SubscribeFrame(STREAM, "bench-sink", 0, 1)).build(), clientLoops,
                (client, frame) -> acknowledge(client, frame));
        subscriber.start();
        closeables.add(subscriber);

        // Permits in KiB so that a 16 MiB window fits an int comfortably.
        window = new Semaphore(windowBytes / 1024);
        permitsPerBatch = Math.max(1, payloadBytes / 1024);
        sender = new PeerClient(clientConfig(a1, PeerRole.SENDER).build(), clientLoops,
                (client, frame) -> {
                    if (frame instanceof AckFrame) {
                        window.release(permitsPerBatch);
                    }
                    ReferenceCountUtil.release(frame);
                });
        sender.start();
        closeables.add(0, sender);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(sender.isReady() && subscriber.isReady())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("clients not ready within 30 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
        prepareBatch();
    }

    private RelayServer relay(String id, String hops) throws Exception {
        Map<String, Object> props = new java.util.LinkedHashMap<>();
        props.put("relay.id", id);
        props.put("listener.host", "127.0.0.1");
        props.put("listener.port", 0);
        props.put("admin.host", "127.0.0.1");
        props.put("admin.port", 0);
        props.put("tls.enabled", false);
        props.put("io.threads", 1);
        props.put("streams", STREAM);
        props.put("streams." + STREAM + ".token", TOKEN);
        props.put("destinations", "site-b");
        props.put("destinations.site-b.routes", "r1");
        props.put("destinations.site-b.routes.r1.hops", hops);
        RelayMetrics metrics = new RelayMetrics(id);
        RelayServer server = new RelayServer(new RelayConfig(props), metrics, new ProtocolDataPipelineFactory());
        server.start();
        closeables.add(server::shutdownNow);
        closeables.add(metrics);
        return server;
    }

    private static PeerClientConfig.Builder clientConfig(InetSocketAddress relay, PeerRole role) {
        return PeerClientConfig.builder(relay, role, "bench-" + role.name().toLowerCase(), STREAM, TOKEN)
                .heartbeatInterval(Duration.ofSeconds(1));
    }

    private static void acknowledge(PeerClient client, Frame frame) {
        if (frame instanceof BatchFrame batch) {
            AckFrame ack = AckFrame.ok(batch.header());
            batch.release();
            client.send(ack);
        } else {
            ReferenceCountUtil.release(frame);
        }
    }

    private void prepareBatch() {
        int records = Math.max(1, payloadBytes / 1024);
        List<ReplicatedRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[1000];
            for (int b = 0; b < value.length; b++) {
                value[b] = (byte) ('A' + (b * 31 + i) % 26);
            }
            list.add(new ReplicatedRecord(i, 1_700_000_000_000L + i, ("key-" + i).getBytes(), value));
        }
        EncodedBatch encoded = new BatchEncoder().encode(new RecordBatch("bench-topic", 0, -1, list),
                CompressionCodec.NONE);
        BatchFrame prototype = BatchFrame.copyOf(RoutingHeader.unrouted(STREAM, 0, "bench-sender", "site-b"), encoded,
                System.currentTimeMillis(), PooledByteBufAllocator.DEFAULT);
        header = prototype.header();
        payload = prototype.payload();
    }

    @Benchmark
    public void forwardOneBatch() {
        window.acquireUninterruptibly(permitsPerBatch);
        RoutingHeader routing = RoutingHeader.unrouted(STREAM, ++nextId, "bench-sender", "site-b");
        BatchFrame frame = new BatchFrame(header.withRouting(routing), payload.retainedDuplicate());
        if (!sender.send(frame)) {
            window.release(permitsPerBatch);
            throw new IllegalStateException("sender lost its relay connection");
        }
    }

    @Setup(Level.Iteration)
    public void startCpuClock() {
        iterationStartNanos = System.nanoTime();
        relayCpuStart = relayCpuNanos();
        processCpuStart = os.getProcessCpuTime();
    }

    @TearDown(Level.Iteration)
    public void reportCpu() {
        double wall = System.nanoTime() - iterationStartNanos;
        double relayCores = (relayCpuNanos() - relayCpuStart) / wall;
        double processCores = (os.getProcessCpuTime() - processCpuStart) / wall;
        System.out.printf("%n  cpu: relays %.2f cores, whole process %.2f cores (payload %d B)%n", relayCores,
                processCores, payloadBytes);
    }

    /** CPU time of the relays' threads (I/O loops, acceptors, ack timers), user + system. */
    private long relayCpuNanos() {
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("relay-")) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    total += cpu;
                }
            }
        }
        return total;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        if (payload != null) {
            payload.release();
        }
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
