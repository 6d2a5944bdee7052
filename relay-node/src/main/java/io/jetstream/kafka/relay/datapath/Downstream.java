package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.relay.metrics.PeerMetrics;

/**
 * Where a batch goes next: a next-hop relay ({@link NextHopLink}) or a subscriber
 * ({@link SubscriberLink}). Thread-safe: called from any upstream's event loop.
 */
interface Downstream {

    /** Label for logs and metrics. */
    String peerId();

    PeerMetrics metrics();

    /** The stream the connection carries; ACKs must name it. */
    String streamId();

    /**
     * The generation of the underlying connection. It changes when that connection is lost, which
     * fails every pending batch sent through the old one: a sender that registers a batch, sends
     * it, then sees a different epoch knows the failure scan may have missed it and fails it itself.
     */
    long epoch();

    /**
     * Writes a frame; ownership moves here. False (frame released, {@code onWritten} not run) when
     * the connection is not usable.
     *
     * @param onWritten runs once when the write has finished, successfully or not: the frame's bytes
     *                  have left this relay's buffers (they are in the socket or gone)
     */
    boolean send(Frame frame, Runnable onWritten);

    /**
     * Connected but above its high water mark: an upstream that fed it stops reading until it
     * drains. A downstream that is gone holds nothing back (frames for it are nacked at once).
     */
    boolean holdsBack();

    /** Wakes {@code upstream} once when this downstream stops holding back (drained, or gone). */
    void awaitWritable(UpstreamHandler upstream);
}
