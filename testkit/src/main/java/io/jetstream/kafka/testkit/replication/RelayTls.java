package io.jetstream.kafka.testkit.replication;

import java.nio.file.Path;
import java.util.Objects;

/**
 * PEM files for mutual TLS on the relay links of a {@link ReplicationEnvironment}: the CA every
 * peer trusts, and one certificate (with its PKCS#8 key) that every relay serves and presents as a
 * client, and that the connectors present. It must name 127.0.0.1 (relays and links listen there)
 * and allow both server and client use. Made by the caller, at test time.
 */
public record RelayTls(Path caFile, Path certFile, Path keyFile) {

    public RelayTls {
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
    }
}
