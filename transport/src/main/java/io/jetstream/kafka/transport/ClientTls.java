package io.jetstream.kafka.transport;

import java.nio.file.Path;
import java.util.Optional;

import javax.net.ssl.SSLException;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * TLS for connections to relays, built from PEM files with the JDK provider (no native library):
 * TLS 1.3 and 1.2 only; the relay's certificate is verified against {@code caFile} (the JVM's
 * default CAs when empty) <em>and its host name</em> (the certificate must name the host the client
 * connects to); {@code certFile} and {@code keyFile} (PKCS#8 PEM) are presented when the relay
 * requires client certificates (mutual TLS).
 */
public final class ClientTls {

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private ClientTls() {
    }

    /**
     * A client context.
     *
     * @throws IllegalArgumentException if only one of cert and key is given, or the files cannot be
     *                                  used (the message names them)
     */
    public static SslContext sslContext(Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile) {
        if (certFile.isPresent() != keyFile.isPresent()) {
            throw new IllegalArgumentException("a client certificate needs both a certificate file and a key file, got "
                    + "cert=" + certFile.map(Path::toString).orElse("(none)") + " key="
                    + keyFile.map(Path::toString).orElse("(none)"));
        }
        try {
            SslContextBuilder builder = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOLS)
                    .endpointIdentificationAlgorithm("HTTPS");
            caFile.map(Path::toFile).ifPresent(builder::trustManager);
            if (certFile.isPresent()) {
                builder.keyManager(certFile.get().toFile(), keyFile.get().toFile());
            }
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot build a TLS client context from ca=" + describe(caFile)
                    + " cert=" + describe(certFile) + " key=" + describe(keyFile) + ": " + e.getMessage()
                    + " (keys must be PKCS#8 PEM: BEGIN PRIVATE KEY)", e);
        }
    }

    private static String describe(Optional<Path> file) {
        return file.map(Path::toString).orElse("(none)");
    }
}
