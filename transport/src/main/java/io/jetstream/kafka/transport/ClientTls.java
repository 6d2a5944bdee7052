package io.jetstream.kafka.transport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import javax.net.ssl.SSLException;

import io.jetstream.kafka.core.model.Clock;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * TLS for connections to relays, built from PEM files with the JDK provider (no native library):
 * TLS 1.3 and 1.2 only; the relay's certificate is verified against {@code caFile} (the JVM's
 * default CAs when empty) <em>and its host name</em> (the certificate must name the host the client
 * connects to); {@code certFile} and {@code keyFile} (PKCS#8 PEM) are presented when the relay
 * requires client certificates (mutual TLS).
 *
 * <p>The files are read again when they change ({@link ReloadingTlsFiles}): a renewed client
 * certificate, or a CA added to {@code caFile}, is used from the next connection on, without a
 * restart of the task.
 */
public final class ClientTls {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private ClientTls() {
    }

    /**
     * A client context that follows its files, looked at every
     * {@link ReloadingTlsFiles#DEFAULT_CHECK_INTERVAL} at most.
     *
     * @throws IllegalArgumentException if only one of cert and key is given, or the files cannot be
     *                                  used (the message names them)
     */
    public static ReloadingSslContext sslContext(Optional<Path> caFile, Optional<Path> certFile,
                                                 Optional<Path> keyFile) {
        return sslContext(TlsFiles.of(caFile, certFile, keyFile), ReloadingTlsFiles.DEFAULT_CHECK_INTERVAL,
                Clock.system(), ReloadingTlsFiles.Listener.NONE);
    }

    /**
     * A client context that follows its files.
     *
     * @param checkInterval most frequent look at the files (on a new connection); zero: at each one
     * @throws IllegalArgumentException if the files cannot be used (the message names them)
     */
    public static ReloadingSslContext sslContext(TlsFiles files, Duration checkInterval, Clock clock,
                                                 ReloadingTlsFiles.Listener listener) {
        return new ReloadingSslContext(ReloadingTlsFiles.load(files, checkInterval, clock, listener),
                ClientTls::build);
    }

    /** A client context from checked material: trust (or the JVM's CAs), host-name check, certificate if any. */
    public static SslContext build(TlsMaterial material) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS)
                .endpointIdentificationAlgorithm("HTTPS");
        if (!material.trust().isEmpty()) {
            builder.trustManager(material.trust());
        }
        if (material.key().isPresent()) {
            builder.keyManager(material.key().get(), material.chain());
        }
        return builder.build();
    }
}
