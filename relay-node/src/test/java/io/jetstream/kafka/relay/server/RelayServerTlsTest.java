package io.jetstream.kafka.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RelayConfigException;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.TestConfigs;
import io.jetstream.kafka.relay.testing.TestOnlyEchoPipelineFactory;
import io.jetstream.kafka.relay.testing.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS on the data listener and on next-hop connections, with certificates generated per test. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayServerTlsTest {

    @TempDir
    Path dir;

    private TestPki pki;
    private final RelayMetrics serverMetrics = new RelayMetrics("relay-b1");
    private final RelayMetrics clientMetrics = new RelayMetrics("relay-a1");
    private final EventLoopGroup clientLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private RelayServer server;

    @BeforeEach
    void createPki() throws Exception {
        pki = new TestPki(dir);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.shutdownNow();
        }
        clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Map<String, Object> tlsConfig(String relayId, TestPki.PemPair pair, String clientAuth) throws Exception {
        Map<String, Object> props = TestConfigs.plaintext(relayId);
        props.put(RelayConfig.TLS_ENABLED, true);
        props.put(RelayConfig.TLS_CERT_FILE, pair.cert().toString());
        props.put(RelayConfig.TLS_KEY_FILE, pair.key().toString());
        props.put(RelayConfig.TLS_CA_FILE, pki.caFile().toString());
        props.put(RelayConfig.TLS_CLIENT_AUTH, clientAuth);
        return props;
    }

    private RelayServer.BoundAddresses startServer(String clientAuth) throws Exception {
        server = new RelayServer(new RelayConfig(tlsConfig("relay-b1", pki.relay("relay-b1", "localhost"), clientAuth)),
                serverMetrics, new TestOnlyEchoPipelineFactory());
        return server.start();
    }

    /** A PeerConnector as relay-a1 would build it, from its own TLS configuration. */
    private PeerConnector connectorOf(RelayConfig config) {
        return new PeerConnector(config, RelayTls.load(config, clientMetrics, Clock.system()).map(RelayTls::client), clientMetrics,
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE),
                new TransportPipeline(config, new ConnectionCounter(clientMetrics, RoleLabel.RELAY_OUT),
                        new LastResortHandler(clientMetrics)), Clock.system());
    }

    /** Sends "ping" once TLS is up and completes with what comes back. */
    private static CompletableFuture<String> pingOver(Channel channel) {
        CompletableFuture<String> reply = new CompletableFuture<>();
        channel.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) throws Exception {
                ctx.read();
                ctx.pipeline().get(SslHandler.class).handshakeFuture().addListener(f -> {
                    if (f.isSuccess()) {
                        ctx.writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.UTF_8));
                    } else {
                        reply.completeExceptionally(f.cause());
                    }
                });
                super.channelActive(ctx);
            }

            @Override
            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                reply.complete(msg.toString(StandardCharsets.UTF_8));
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                ctx.read();
            }
        });
        return reply;
    }

    @Test
    void relaysTalkOverMutualTls() throws Exception {
        RelayServer.BoundAddresses bound = startServer("required");
        RelayConfig client = new RelayConfig(tlsConfig("relay-a1", pki.relay("relay-a1", "relay-a1.test"), "required"));
        CompletableFuture<CompletableFuture<String>> reply = new CompletableFuture<>();

        connectorOf(client).connect(new HopAddress("localhost", bound.data().getPort()), clientLoop.next(),
                channel -> reply.complete(pingOver(channel))).sync();

        assertThat(reply.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isEqualTo("ping");
        assertThat(clientMetrics.connections(RoleLabel.RELAY_OUT).get()).isEqualTo(1);
        assertThat(serverMetrics.connections(RoleLabel.PENDING).get()).isEqualTo(1);
    }

    @Test
    void nextHopWhoseCertificateDoesNotNameItIsRefused() throws Exception {
        server = new RelayServer(new RelayConfig(tlsConfig("relay-b1", pki.relay("relay-b1", "elsewhere.test"), "none")),
                serverMetrics, new TestOnlyEchoPipelineFactory());
        RelayServer.BoundAddresses bound = server.start();
        RelayConfig client = new RelayConfig(tlsConfig("relay-a1", pki.relay("relay-a1", "relay-a1.test"), "none"));
        CompletableFuture<CompletableFuture<String>> reply = new CompletableFuture<>();

        connectorOf(client).connect(new HopAddress("localhost", bound.data().getPort()), clientLoop.next(),
                channel -> reply.complete(pingOver(channel))).sync();

        assertThatThrownBy(() -> reply.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(CertificateException.class);
        await("client to count the failed handshake").atMost(Duration.ofSeconds(10))
                .until(() -> clientMetrics.errors(ErrorKind.TLS_HANDSHAKE).get() == 1);
    }

    @Test
    void clientWithoutCertificateIsRefusedWhenClientAuthIsRequired() throws Exception {
        RelayServer.BoundAddresses bound = startServer("required");

        try (SSLSocket socket = (SSLSocket) trustingCaOnly().getSocketFactory()
                .createSocket("localhost", bound.data().getPort())) {
            socket.setSoTimeout(10_000);
            // TLS 1.3: the client finishes its side first; the server's alert arrives on the next read.
            assertThatThrownBy(() -> {
                socket.startHandshake();
                socket.getOutputStream().write(1);
                socket.getOutputStream().flush();
                if (socket.getInputStream().read() < 0) {
                    throw new EOFException("closed");
                }
            }).isInstanceOf(IOException.class);
        }
        await("server to count the failed handshake").atMost(Duration.ofSeconds(10))
                .until(() -> serverMetrics.errors(ErrorKind.TLS_HANDSHAKE).get() == 1);
    }

    @Test
    void clientWithoutCertificateIsServedWhenClientAuthIsNone() throws Exception {
        RelayServer.BoundAddresses bound = startServer("none");

        try (SSLSocket socket = (SSLSocket) trustingCaOnly().getSocketFactory()
                .createSocket("localhost", bound.data().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("abc".getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            assertThat(new String(socket.getInputStream().readNBytes(3), StandardCharsets.UTF_8)).isEqualTo("abc");
        }
    }

    @Test
    void unusableKeyFileIsAConfigurationErrorAtStart() throws Exception {
        Map<String, Object> props = tlsConfig("relay-b1", pki.relay("relay-b1", "localhost"), "none");
        props.put(RelayConfig.TLS_KEY_FILE, Files.writeString(dir.resolve("bad-key.pem"), "not a key").toString());
        server = new RelayServer(new RelayConfig(props), serverMetrics, new TestOnlyEchoPipelineFactory());

        assertThatThrownBy(server::start)
                .isInstanceOf(RelayConfigException.class)
                .hasMessageContaining("cannot use the TLS files (tls.cert.file=");
        assertThat(server.terminationFuture()).isDone();
    }

    private SSLContext trustingCaOnly() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (var in = Files.newInputStream(pki.caFile())) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
