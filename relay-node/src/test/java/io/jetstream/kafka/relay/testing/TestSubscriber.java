package io.jetstream.kafka.relay.testing;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;

/**
 * A destination-site task stand-in: a {@link PeerClient} with role SUBSCRIBER for one share that records
 * every batch header it receives, per partition in arrival order, and acknowledges each at once.
 */
public final class TestSubscriber implements PeerClient.Listener, AutoCloseable {

    private final PeerClient client;
    /** Headers received, per "topic-partition", in arrival order. */
    public final Map<String, List<BatchHeader>> received = new ConcurrentHashMap<>();
    public final List<TopicMetadataFrame> metadata = new CopyOnWriteArrayList<>();
    public final AtomicLong batches = new AtomicLong();
    public final AtomicLong payloadBytes = new AtomicLong();
    /**
     * When set, each batch's MAC is checked ({@link #verdicts}) and every ACK signed with it (the
     * destination-site connector's {@code integrity.key}).
     */
    public volatile FrameSigner signer;
    /** The MAC check of each batch received while {@link #signer} was set. */
    public final List<FrameSigner.Verdict> verdicts = new CopyOnWriteArrayList<>();
    /** When false, batches are recorded but their ACKs held until {@link #ackHeld()}. */
    public volatile boolean autoAck = true;
    private final List<BatchHeader> held = new CopyOnWriteArrayList<>();

    public TestSubscriber(String nodeId, InetSocketAddress relay, int shareIndex, int shareCount, EventLoopGroup group) {
        this(nodeId, relay, shareIndex, shareCount, group, null);
    }

    /** @param tls client TLS ({@code ClientTls}), or null for plaintext */
    public TestSubscriber(String nodeId, InetSocketAddress relay, int shareIndex, int shareCount, EventLoopGroup group,
                          SslContext tls) {
        this(nodeId, relay, shareIndex, shareCount, group, tls, 0L);
    }

    /** @param epoch the subscription's epoch (when the task instance it stands for started) */
    public TestSubscriber(String nodeId, InetSocketAddress relay, int shareIndex, int shareCount, EventLoopGroup group,
                          long epoch) {
        this(nodeId, relay, shareIndex, shareCount, group, null, epoch);
    }

    private TestSubscriber(String nodeId, InetSocketAddress relay, int shareIndex, int shareCount,
                           EventLoopGroup group, SslContext tls, long epoch) {
        PeerClientConfig config = PeerClientConfig.builder(relay, PeerRole.SUBSCRIBER, nodeId, TestRelay.STREAM,
                        TestRelay.TOKEN)
                .sslContext(tls)
                .heartbeatInterval(Duration.ofSeconds(1))
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .subscription(new SubscribeFrame(TestRelay.STREAM, nodeId, shareIndex, shareCount, epoch))
                .build();
        this.client = new PeerClient(config, group, this);
        client.start();
    }

    public PeerClient client() {
        return client;
    }

    public boolean isReady() {
        return client.isReady();
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        if (frame instanceof BatchFrame batch) {
            BatchHeader header = batch.header();
            received.computeIfAbsent(header.topic() + "-" + header.partition(), k -> new CopyOnWriteArrayList<>())
                    .add(header);
            payloadBytes.addAndGet(batch.payload().readableBytes());
            FrameSigner signing = signer;
            if (signing != null) {
                verdicts.add(signing.verify(batch));
            }
            batch.release();
            if (autoAck) {
                c.send(signed(AckFrame.ok(header)));
            } else {
                held.add(header);
            }
            batches.incrementAndGet(); // last: a test that saw the count can ack what it counted
        } else if (frame instanceof TopicMetadataFrame topic) {
            metadata.add(topic);
            c.send(signed(AckFrame.ok(topic)));
        } else {
            ReferenceCountUtil.release(frame);
        }
    }

    /** Sends the ACKs held while {@link #autoAck} was off; returns how many. */
    public int ackHeld() {
        List<BatchHeader> toAck = new ArrayList<>(held);
        held.removeAll(toAck);
        toAck.forEach(header -> client.send(signed(AckFrame.ok(header))));
        return toAck.size();
    }

    private AckFrame signed(AckFrame ack) {
        FrameSigner signing = signer;
        return signing == null ? ack : signing.sign(ack);
    }

    /**
     * Problems with per-partition order: each batch must follow the previous one of its partition
     * ({@code prevOffset} equal to the previous batch's {@code lastOffset}, first one from -1).
     */
    public List<String> orderViolations() {
        List<String> problems = new ArrayList<>();
        received.forEach((partition, headers) -> {
            long expectedPrev = -1;
            for (BatchHeader header : headers) {
                if (header.prevOffset() != expectedPrev) {
                    problems.add(partition + ": batch " + header.firstOffset() + ".." + header.lastOffset()
                            + " has prevOffset " + header.prevOffset() + ", expected " + expectedPrev);
                }
                expectedPrev = header.lastOffset();
            }
        });
        return problems;
    }

    @Override
    public void close() {
        client.close();
    }
}
