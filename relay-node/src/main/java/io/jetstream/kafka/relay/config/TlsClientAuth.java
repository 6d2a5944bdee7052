package io.jetstream.kafka.relay.config;

/** Whether the data listener asks connecting peers for a certificate ({@code tls.client.auth}). */
public enum TlsClientAuth {
    /** Peers are not asked for a certificate; streams are still protected by their tokens. */
    NONE,
    /** A certificate is requested and verified against {@code tls.ca.file} if the peer sends one. */
    OPTIONAL,
    /** Mutual TLS: a peer without a certificate signed by {@code tls.ca.file} is refused. */
    REQUIRED
}
