package io.jetstream.kafka.relay.datapath;

import java.util.Objects;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.metrics.PeerMetrics;

/**
 * Who is at the other end of an accepted connection, as its HELLO established.
 *
 * @param peerId   the node id the peer announced
 * @param role     what it is: SENDER, RELAY or SUBSCRIBER
 * @param streamId the stream it authenticated for; the only one it may use on this connection
 * @param metrics  its series, resolved once
 * @param receipts whether it asked for receipts ({@code HelloFrame.FLAG_RECEIPTS}): RECEIVED acks
 *                 for the batches it sends, besides their answers
 */
record Session(String peerId, PeerRole role, String streamId, PeerMetrics metrics, boolean receipts) {

    Session {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public String toString() {
        return role + " " + peerId + " (stream " + streamId + ")";
    }
}
