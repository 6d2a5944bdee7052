package io.jetstream.kafka.relay.testing;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchIdSequence;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;

/**
 * A source-site task stand-in: a {@link PeerClient} with role SENDER that sends batches of
 * consecutive offsets per partition and records the outcome (ACK or NACK) of each batch id.
 * {@link #send} is called from the test thread only.
 */
public final class TestSender implements PeerClient.Listener, AutoCloseable {

    private final PeerClient client;
    private final String nodeId;
    private final TestBatches batches = new TestBatches();
    private final BatchIdSequence ids = BatchIdSequence.withRandomEpoch();
    private final Map<String, Long> lastOffsets = new HashMap<>();
    /** Every batch sent, by id. */
    public final Set<Long> sent = ConcurrentHashMap.newKeySet();
    /** The first answer for each batch id. */
    public final Map<Long, AckFrame> outcomes = new ConcurrentHashMap<>();
    /** Answers beyond the first for a batch id (must stay empty). */
    public final Map<Long, AckFrame> extraAnswers = new ConcurrentHashMap<>();
    /** Receipts (RECEIVED) per batch id; only a sender that asked for them gets any. */
    public final Map<Long, Integer> receipts = new ConcurrentHashMap<>();
    /** Batch ids whose receipt came after their answer (must stay empty). */
    public final Set<Long> receiptsAfterAnswer = ConcurrentHashMap.newKeySet();
    /** When set, every batch is signed with it (the source-site connector's {@code integrity.key}). */
    public volatile FrameSigner signer;
    /** Connections lost: a real sender would treat every unanswered batch as failed and re-send it. */
    public final List<String> disconnects = new CopyOnWriteArrayList<>();

    public TestSender(String nodeId, InetSocketAddress relay, EventLoopGroup group) {
        this(nodeId, relay, group, null);
    }

    /** @param tls client TLS ({@code ClientTls}), or null for plaintext */
    public TestSender(String nodeId, InetSocketAddress relay, EventLoopGroup group, SslContext tls) {
        this(nodeId, relay, group, tls, false);
    }

    /** @param receipts ask the relay for receipts (HELLO flag) */
    public TestSender(String nodeId, InetSocketAddress relay, EventLoopGroup group, SslContext tls, boolean receipts) {
        this.nodeId = nodeId;
        PeerClientConfig config = PeerClientConfig.builder(relay, PeerRole.SENDER, nodeId, TestRelay.STREAM,
                        TestRelay.TOKEN)
                .sslContext(tls)
                .heartbeatInterval(Duration.ofSeconds(1))
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .writeWaterMarks(256 * 1024, 512 * 1024)
                .receipts(receipts)
                .build();
        this.client = new PeerClient(config, group, this);
        client.start();
    }

    public PeerClient client() {
        return client;
    }

    /**
     * Sends the next batch of a partition (offsets follow the previous batch of that partition).
     *
     * @return its id, or -1 when the client was not ready (nothing sent; the offsets are not used)
     */
    public long send(String topic, int partition, int records, int valueBytes) {
        String key = topic + "-" + partition;
        long prev = lastOffsets.getOrDefault(key, -1L);
        long id = ids.next();
        BatchFrame frame = batches.batch(TestRelay.STREAM, id, nodeId, TestRelay.DESTINATION, topic, partition, prev,
                records, valueBytes, PooledByteBufAllocator.DEFAULT);
        FrameSigner signing = signer;
        if (signing != null) {
            frame = signing.sign(frame);
        }
        if (!client.send(frame)) {
            return -1;
        }
        sent.add(id);
        lastOffsets.put(key, prev + records);
        return id;
    }

    public boolean isReady() {
        return client.isReady();
    }

    public boolean isWritable() {
        return client.isWritable();
    }

    public long oks() {
        return outcomes.values().stream().filter(AckFrame::isOk).count();
    }

    public long nacks(AckReason reason) {
        return outcomes.values().stream().filter(a -> a.reason() == reason).count();
    }

    /** Sent batches with no answer yet. */
    public long unanswered() {
        return sent.stream().filter(id -> !outcomes.containsKey(id)).count();
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        if (frame instanceof AckFrame ack && ack.isReceipt()) {
            receipts.merge(ack.batchId(), 1, Integer::sum);
            if (outcomes.containsKey(ack.batchId())) {
                receiptsAfterAnswer.add(ack.batchId());
            }
        } else if (frame instanceof AckFrame ack) {
            if (outcomes.putIfAbsent(ack.batchId(), ack) != null) {
                extraAnswers.put(ack.batchId(), ack);
            }
        }
        ReferenceCountUtil.release(frame);
    }

    @Override
    public void onDisconnected(PeerClient c, Throwable cause) {
        if (!c.isClosed()) {
            disconnects.add(String.valueOf(cause));
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
