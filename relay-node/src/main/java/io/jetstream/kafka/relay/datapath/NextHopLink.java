package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.PeerMetrics;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.transport.PeerClient;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This relay's connection to one next-hop relay for one stream: a {@link PeerClient} (role RELAY)
 * that reconnects by itself, seen by the data path as a {@link Downstream}.
 *
 * <p>States: {@code CONNECTING} until the first connection attempt ends (batches for it wait,
 * bounded by the connect timeout), then {@code READY} or {@code DOWN}. While {@code DOWN} (the
 * client is reconnecting with backoff) batches are nacked {@code NEXT_HOP_UNREACHABLE} at once, so
 * that the ingress tries another route and senders re-send without waiting. When a connection is
 * lost, every pending batch sent through it is nacked the same way.
 */
final class NextHopLink implements Downstream, PeerClient.Listener {

    enum State { CONNECTING, READY, DOWN }

    private static final Logger log = LoggerFactory.getLogger(NextHopLink.class);

    private final String hop;
    private final String streamId;
    private final RelayMetrics relayMetrics;
    private final AckPath acks;
    private final Waiters waiters = new Waiters();
    private final AtomicLong epoch = new AtomicLong();
    private volatile State state = State.CONNECTING;
    private final PeerMetrics metrics;
    private volatile PeerClient client;
    // Touched only by the data path's periodic report task.
    private long reportedBytesOut;
    private long reportedBytesIn;

    /** @param acks where the next hop's ACKs go, and which fails the frames sent through a lost connection */
    NextHopLink(String hop, String streamId, RelayMetrics relayMetrics, AckPath acks) {
        this.hop = hop;
        this.streamId = streamId;
        this.relayMetrics = relayMetrics;
        this.acks = acks;
        this.metrics = relayMetrics.peer(hop);
    }

    void start(PeerClient peerClient) {
        this.client = peerClient;
        peerClient.start();
    }

    State state() {
        return state;
    }

    /** Ready, or still making its first attempt (worth waiting for). */
    boolean usable() {
        return state != State.DOWN;
    }

    @Override
    public String streamId() {
        return streamId;
    }

    /** Wakes {@code upstream} when the state or writability changes. */
    void awaitChange(UpstreamHandler upstream) {
        waiters.add(upstream);
    }

    @Override
    public String peerId() {
        return hop;
    }

    @Override
    public PeerMetrics metrics() {
        return metrics;
    }

    @Override
    public long epoch() {
        return epoch.get();
    }

    @Override
    public boolean send(Frame frame, Runnable onWritten) {
        PeerClient current = client;
        if (current == null) {
            ReferenceCountUtil.release(frame);
            return false;
        }
        return current.send(frame, onWritten);
    }

    @Override
    public boolean holdsBack() {
        PeerClient current = client;
        return state == State.READY && current != null && !current.isWritable();
    }

    @Override
    public void awaitWritable(UpstreamHandler upstream) {
        waiters.add(upstream);
    }

    @Override
    public void onReady(PeerClient c) {
        String relayId = c.peerNodeId();
        state = State.READY;
        relayMetrics.connections(RoleLabel.RELAY_OUT).inc();
        log.info("Connected to next hop {} ({}) for stream {}", hop, relayId, streamId);
        waiters.wakeAll();
    }

    @Override
    public void onDisconnected(PeerClient c, Throwable cause) {
        State previous = state;
        state = State.DOWN;
        if (previous == State.READY) {
            relayMetrics.connections(RoleLabel.RELAY_OUT).dec();
            log.info("Lost next hop {} for stream {}: {}", hop, streamId, cause == null ? "closed" : cause.toString());
        } else if (previous == State.CONNECTING) {
            relayMetrics.errors(ErrorKind.CONNECT_FAILED).inc();
            log.info("Cannot reach next hop {} for stream {}: {}", hop, streamId,
                    cause == null ? "closed" : cause.toString());
        } else {
            relayMetrics.errors(ErrorKind.CONNECT_FAILED).inc();
        }
        long lost = epoch.getAndIncrement();
        acks.failThrough(this, lost, "connection to next hop " + hop + " lost");
        waiters.wakeAll();
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        if (frame instanceof AckFrame ack) {
            acks.onAck(ack, this);
        } else if (frame instanceof ErrorFrame error) {
            log.info("Next hop {} sent ERROR {}: {}", hop, error.code(), error.message());
        } else {
            relayMetrics.errors(ErrorKind.UNEXPECTED_FRAME).inc();
            log.warn("Next hop {} sent an unexpected {} frame; dropped", hop, frame.type());
            ReferenceCountUtil.release(frame);
        }
    }

    @Override
    public void onWritabilityChanged(PeerClient c, boolean writable) {
        if (writable) {
            waiters.wakeAll();
        }
    }

    /** Copies the client's byte counts and RTT into the peer's series (periodic task). */
    void reportTraffic() {
        PeerClient current = client;
        if (current == null) {
            return;
        }
        PeerMetrics m = metrics;  // next hops are labelled by the address written in the routes
        long out = current.bytesSent();
        long in = current.bytesReceived();
        m.bytesOut().inc(Math.max(0, out - reportedBytesOut));
        m.bytesIn().inc(Math.max(0, in - reportedBytesIn));
        reportedBytesOut = out;
        reportedBytesIn = in;
        Duration rtt = current.rtt();
        if (!rtt.isZero()) {
            m.rttSeconds().set(rtt.toNanos() / 1e9);
        }
    }

    void close() {
        PeerClient current = client;
        if (current != null) {
            current.close();
        }
        relayMetrics.release(metrics);
    }

    @Override
    public String toString() {
        return "next hop " + hop + " (stream " + streamId + ", " + state + ")";
    }
}
