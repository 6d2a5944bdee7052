package io.jetstream.kafka.transport;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty {@link SslContext} that follows its PEM files: each new connection gets its handler from a
 * context built from the material {@link ReloadingTlsFiles} has in use, rebuilt when that material
 * changes. Connections already open keep their session; new ones handshake with the new certificate
 * and trust, and, since the rebuilt context has a new session cache, do not resume a session made
 * with the old one.
 *
 * <p>It can stand wherever an {@code SslContext} is taken ({@link PeerClientConfig}, a server's
 * initializer): callers need not know it reloads. Thread-safe.
 */
public final class ReloadingSslContext extends SslContext {

    /** Builds a context from checked material: the server's or the client's settings. */
    @FunctionalInterface
    public interface Builder {
        SslContext build(TlsMaterial material) throws SSLException;
    }

    private record Built(TlsMaterial material, SslContext context) {
    }

    private static final Logger log = LoggerFactory.getLogger(ReloadingSslContext.class);

    private final ReloadingTlsFiles files;
    private final Builder builder;
    private volatile Built built;
    /** Material the builder refused, not tried again. Guarded by {@code this}. */
    private TlsMaterial refused;

    /**
     * Builds the first context from the material {@code files} has in use.
     *
     * @throws IllegalArgumentException if the builder refuses it (the message names the files)
     */
    public ReloadingSslContext(ReloadingTlsFiles files, Builder builder) {
        this.files = Objects.requireNonNull(files, "files");
        this.builder = Objects.requireNonNull(builder, "builder");
        TlsMaterial material = files.current();
        try {
            this.built = new Built(material, builder.build(material));
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot build a TLS context from " + files.files() + ": "
                    + e.getMessage(), e);
        }
    }

    /** The files this context follows. */
    public ReloadingTlsFiles files() {
        return files;
    }

    /** The context for a new connection: rebuilt first if the files brought new material. */
    public SslContext current() {
        Built now = built;
        TlsMaterial material = files.material();
        if (material == now.material()) {
            return now.context();
        }
        synchronized (this) {
            now = built;
            if (material == now.material() || material == refused) {
                return now.context();
            }
            try {
                built = new Built(material, builder.build(material));
                refused = null;
                return built.context();
            } catch (SSLException | RuntimeException e) {
                refused = material;
                log.warn("Cannot build a TLS context from the changed files ({}): {}; still using {}",
                        files.files(), e.toString(), now.material().describeLeaf());
                return now.context();
            }
        }
    }

    @Override
    public boolean isClient() {
        return built.context().isClient();
    }

    @Override
    public List<String> cipherSuites() {
        return current().cipherSuites();
    }

    @Override
    public long sessionCacheSize() {
        return current().sessionCacheSize();
    }

    @Override
    public long sessionTimeout() {
        return current().sessionTimeout();
    }

    @Override
    public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
        return current().applicationProtocolNegotiator();
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc) {
        return current().newEngine(alloc);
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
        return current().newEngine(alloc, peerHost, peerPort);
    }

    @Override
    public SSLSessionContext sessionContext() {
        return current().sessionContext();
    }

    // The handlers come from the current context itself, so that whatever it adds to its own
    // handlers (the JDK context's session resumption support) is kept. This context never
    // starts TLS late (startTls is false), as none of the project's contexts does.

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls) {
        return startTls ? super.newHandler(alloc, true) : current().newHandler(alloc);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls) {
        return startTls ? super.newHandler(alloc, peerHost, peerPort, true)
                : current().newHandler(alloc, peerHost, peerPort);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls, Executor executor) {
        return startTls ? super.newHandler(alloc, true, executor) : current().newHandler(alloc, executor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls,
                                    Executor executor) {
        return startTls ? super.newHandler(alloc, peerHost, peerPort, true, executor)
                : current().newHandler(alloc, peerHost, peerPort, executor);
    }
}
