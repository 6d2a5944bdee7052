package io.jetstream.kafka.relay.metrics;

import java.util.Locale;

/** What is at the other end of a data connection: the {@code role} label of {@code jetstream_relay_connections}. */
public enum ConnectionRole {
    /** Accepted; the handshake has not said who the peer is yet. */
    PENDING,
    /** A source-site connector task sending batches (this relay is its ingress). */
    SOURCE_TASK,
    /** A sink-site connector task subscribed to batches (this relay is its egress). */
    SINK_TASK,
    /** Another relay forwarding batches to this one. */
    RELAY_IN,
    /** This relay's connection to a next-hop relay. */
    RELAY_OUT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
