package io.jetstream.kafka.relay.server;

import java.nio.file.Path;
import java.util.Optional;

import javax.net.ssl.SSLException;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RelayConfigException;
import io.jetstream.kafka.relay.config.TlsClientAuth;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.transport.ClientTls;
import io.jetstream.kafka.transport.ReloadingSslContext;
import io.jetstream.kafka.transport.ReloadingTlsFiles;
import io.jetstream.kafka.transport.TlsFiles;
import io.jetstream.kafka.transport.TlsMaterial;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * The relay's TLS: its PEM files, followed for changes ({@link ReloadingTlsFiles}, checked every
 * {@code tls.reload.interval.ms} at most), and the two contexts built from them, with the JDK
 * provider (no native tcnative):
 *
 * <ul>
 *   <li>server: this relay's certificate chain and key; client certificates verified against
 *       {@code tls.ca.file} as {@code tls.client.auth} asks;</li>
 *   <li>client, for connections to next-hop relays: trusts {@code tls.ca.file} (the JDK's CAs when
 *       unset), verifies the next hop's host name, and presents this relay's certificate so that
 *       mutual TLS works between relays.</li>
 * </ul>
 * Only TLS 1.3 and 1.2 are enabled. A renewal of the files reaches both contexts: new connections,
 * accepted and outgoing, use the new certificate and CAs.
 */
public final class RelayTls {

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final ReloadingTlsFiles files;
    private final ReloadingSslContext server;
    private final ReloadingSslContext client;

    private RelayTls(ReloadingTlsFiles files, ReloadingSslContext server, ReloadingSslContext client) {
        this.files = files;
        this.server = server;
        this.client = client;
    }

    /**
     * Reads the TLS files and builds both contexts, or empty when {@code tls.enabled} is false.
     * Reloads and refused files are counted in {@code metrics}, which also shows the certificate's end
     * of validity.
     *
     * @throws RelayConfigException if the files cannot be used (the message names them)
     */
    public static Optional<RelayTls> load(RelayConfig config, RelayMetrics metrics, Clock clock) {
        if (!config.tlsEnabled()) {
            return Optional.empty();
        }
        TlsFiles tlsFiles = new TlsFiles(config.tlsCaFile(),
                Optional.of(required(config.tlsCertFile(), RelayConfig.TLS_CERT_FILE)),
                Optional.of(required(config.tlsKeyFile(), RelayConfig.TLS_KEY_FILE)),
                config.tlsKeyPassword().map(p -> p.value()));
        try {
            ReloadingTlsFiles files = ReloadingTlsFiles.load(tlsFiles, config.tlsReloadInterval(), clock,
                    new ReloadingTlsFiles.Listener() {
                        @Override
                        public void reloaded(TlsMaterial material) {
                            metrics.tlsReloads().inc();
                            showExpiry(metrics, material);
                        }

                        @Override
                        public void reloadFailed(Path file, Exception cause) {
                            metrics.tlsReloadFailures().inc();
                        }
                    });
            showExpiry(metrics, files.current());
            TlsClientAuth clientAuth = config.tlsClientAuth();
            return Optional.of(new RelayTls(files,
                    new ReloadingSslContext(files, material -> server(material, clientAuth)),
                    new ReloadingSslContext(files, ClientTls::build)));
        } catch (IllegalArgumentException e) {
            throw unusable(config, e);
        }
    }

    /** The data listener's context. */
    public SslContext server() {
        return server;
    }

    /** The context of connections this relay opens to next hops. */
    public SslContext client() {
        return client;
    }

    /** The files both contexts follow; {@link ReloadingTlsFiles#refresh()} looks at them now. */
    public ReloadingTlsFiles files() {
        return files;
    }

    private static SslContext server(TlsMaterial material, TlsClientAuth clientAuth) throws SSLException {
        SslContextBuilder builder = SslContextBuilder
                .forServer(material.key().orElseThrow(), material.chain())
                .sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS)
                .clientAuth(clientAuth(clientAuth));
        if (!material.trust().isEmpty()) {
            builder.trustManager(material.trust());
        }
        return builder.build();
    }

    private static void showExpiry(RelayMetrics metrics, TlsMaterial material) {
        material.leaf().ifPresent(leaf -> metrics.tlsCertificateExpiry().set(leaf.getNotAfter().getTime() / 1000.0));
    }

    private static ClientAuth clientAuth(TlsClientAuth mode) {
        return switch (mode) {
            case NONE -> ClientAuth.NONE;
            case OPTIONAL -> ClientAuth.OPTIONAL;
            case REQUIRED -> ClientAuth.REQUIRE;
        };
    }

    private static Path required(Optional<Path> path, String key) {
        // RelayConfig already refuses tls.enabled without the files; this is the last-line guard.
        return path.orElseThrow(() -> new IllegalStateException(key + " is not set"));
    }

    private static RelayConfigException unusable(RelayConfig config, Exception cause) {
        return new RelayConfigException(config.source(), "cannot use the TLS files (" + RelayConfig.TLS_CERT_FILE
                + "=" + config.tlsCertFile().map(Path::toString).orElse("") + ", " + RelayConfig.TLS_KEY_FILE
                + "=" + config.tlsKeyFile().map(Path::toString).orElse("") + ", " + RelayConfig.TLS_CA_FILE
                + "=" + config.tlsCaFile().map(Path::toString).orElse("") + "): " + cause.getMessage(), cause);
    }
}
