package io.jetstream.kafka.relay.server;

import java.io.File;
import java.nio.file.Path;
import java.util.Optional;

import javax.net.ssl.SSLException;

import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RelayConfigException;
import io.jetstream.kafka.relay.config.TlsClientAuth;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * Builds the relay's TLS contexts from PEM files, with the JDK provider (no native tcnative).
 *
 * <ul>
 *   <li>server: this relay's certificate chain and key; client certificates verified against
 *       {@code tls.ca.file} as {@code tls.client.auth} asks;</li>
 *   <li>client, for connections to next-hop relays: trusts {@code tls.ca.file} (the JDK's CAs when
 *       unset), verifies the next hop's host name, and presents this relay's certificate so that
 *       mutual TLS works between relays.</li>
 * </ul>
 * Only TLS 1.3 and 1.2 are enabled.
 */
public final class RelayTls {

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private RelayTls() {
    }

    /** The data listener's context, or empty when {@code tls.enabled} is false. */
    public static Optional<SslContext> serverContext(RelayConfig config) {
        if (!config.tlsEnabled()) {
            return Optional.empty();
        }
        File cert = required(config.tlsCertFile(), RelayConfig.TLS_CERT_FILE);
        File key = required(config.tlsKeyFile(), RelayConfig.TLS_KEY_FILE);
        try {
            SslContextBuilder builder = SslContextBuilder
                    .forServer(cert, key, config.tlsKeyPassword().map(p -> p.value()).orElse(null))
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOLS)
                    .clientAuth(clientAuth(config.tlsClientAuth()));
            config.tlsCaFile().map(Path::toFile).ifPresent(builder::trustManager);
            return Optional.of(builder.build());
        } catch (SSLException | IllegalArgumentException e) {
            throw unusable(config, e);
        }
    }

    /** The context for connections this relay opens to next hops, or empty when TLS is off. */
    public static Optional<SslContext> clientContext(RelayConfig config) {
        if (!config.tlsEnabled()) {
            return Optional.empty();
        }
        try {
            SslContextBuilder builder = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOLS)
                    .endpointIdentificationAlgorithm("HTTPS");
            config.tlsCaFile().map(Path::toFile).ifPresent(builder::trustManager);
            if (config.tlsCertFile().isPresent() && config.tlsKeyFile().isPresent()) {
                builder.keyManager(config.tlsCertFile().get().toFile(), config.tlsKeyFile().get().toFile(),
                        config.tlsKeyPassword().map(p -> p.value()).orElse(null));
            }
            return Optional.of(builder.build());
        } catch (SSLException | IllegalArgumentException e) {
            throw unusable(config, e);
        }
    }

    private static ClientAuth clientAuth(TlsClientAuth mode) {
        return switch (mode) {
            case NONE -> ClientAuth.NONE;
            case OPTIONAL -> ClientAuth.OPTIONAL;
            case REQUIRED -> ClientAuth.REQUIRE;
        };
    }

    private static File required(Optional<Path> path, String key) {
        // RelayConfig already refuses tls.enabled without the files; this is the last-line guard.
        return path.map(Path::toFile).orElseThrow(() -> new IllegalStateException(key + " is not set"));
    }

    private static RelayConfigException unusable(RelayConfig config, Exception cause) {
        return new RelayConfigException(config.source(), "cannot use the TLS files (" + RelayConfig.TLS_CERT_FILE
                + "=" + config.tlsCertFile().map(Path::toString).orElse("") + ", " + RelayConfig.TLS_KEY_FILE
                + "=" + config.tlsKeyFile().map(Path::toString).orElse("") + ", " + RelayConfig.TLS_CA_FILE
                + "=" + config.tlsCaFile().map(Path::toString).orElse("") + "): " + cause.getMessage()
                + " (the key must be PKCS#8 PEM: BEGIN PRIVATE KEY)", cause);
    }
}
