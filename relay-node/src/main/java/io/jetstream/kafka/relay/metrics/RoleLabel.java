package io.jetstream.kafka.relay.metrics;

import java.util.Locale;

import io.jetstream.kafka.core.protocol.PeerRole;

/**
 * The {@code role} label of {@code jetstream_relay_connections}: what is at the other end of a data
 * connection, as this relay counts it. Finer than the {@link PeerRole} a peer declares in its HELLO:
 * it also says which side opened a relay-to-relay connection, and counts connections whose handshake
 * has not said yet. The label values are part of the metrics' contract (dashboards and alerts use
 * them), which is why the connector tasks keep their historical {@code source_task} and
 * {@code sink_task} here.
 */
public enum RoleLabel {
    /** Accepted; the handshake has not said who the peer is yet. */
    PENDING,
    /** A source-site connector task sending batches (this relay is its ingress): {@link PeerRole#SENDER}. */
    SOURCE_TASK,
    /** A destination-site connector task subscribed to batches (this relay is its egress): {@link PeerRole#SUBSCRIBER}. */
    SINK_TASK,
    /** Another relay forwarding batches to this one: {@link PeerRole#RELAY}. */
    RELAY_IN,
    /** This relay's connection to a next-hop relay. */
    RELAY_OUT;

    /** The label of a connection accepted from a peer that declared {@code role}. */
    public static RoleLabel of(PeerRole role) {
        return switch (role) {
            case SENDER -> SOURCE_TASK;
            case RELAY -> RELAY_IN;
            case SUBSCRIBER -> SINK_TASK;
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
