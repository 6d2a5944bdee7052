package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLHandshakeException;

import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.transport.testing.FakeRelay;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS to a relay: trust and host-name checks, mutual TLS, PEM files as the connectors configure them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientTlsTest {

    private static EventLoopGroup group;
    private static X509Bundle ca;

    @TempDir
    Path dir;

    private FakeRelay relay;
    private PeerClient client;
    private final List<Throwable> disconnects = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void setUp() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ca = base().subject("CN=Test CA").setIsCertificateAuthority(true)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.keyCertSign).buildSelfSigned();
    }

    @AfterAll
    static void tearDown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    private static CertificateBuilder base() {
        Instant now = Instant.now();
        return new CertificateBuilder().ecp256().notBefore(now.minus(1, ChronoUnit.HOURS))
                .notAfter(now.plus(1, ChronoUnit.DAYS));
    }

    private X509Bundle leaf(String cn, String dns) throws Exception {
        return base().subject("CN=" + cn).addSanDnsName(dns)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
    }

    private Path write(String name, String pem) throws Exception {
        return Files.writeString(dir.resolve(name), pem);
    }

    private InetSocketAddress startRelay(X509Bundle cert, ClientAuth auth) throws Exception {
        SslContext server = SslContextBuilder.forServer(write("relay.pem", cert.getCertificatePathPEM()).toFile(),
                        write("relay-key.pem", cert.getPrivateKeyPEM()).toFile())
                .sslProvider(SslProvider.JDK).trustManager(write("ca.pem", ca.getCertificatePEM()).toFile())
                .clientAuth(auth).build();
        relay = new FakeRelay(group, FakeRelay.Mode.ACCEPT, server);
        return relay.start(0);
    }

    private void connect(InetSocketAddress relayAddress, SslContext tls) {
        PeerClientConfig config = PeerClientConfig.builder(
                        InetSocketAddress.createUnresolved("localhost", relayAddress.getPort()),
                        PeerRole.SENDER, "task-1", "demo", "token").sslContext(tls)
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).build();
        client = new PeerClient(config, group, new PeerClient.Listener() {
            @Override
            public void onFrame(PeerClient c, Frame frame) {
                ReferenceCountUtil.release(frame);
            }

            @Override
            public void onDisconnected(PeerClient c, Throwable cause) {
                disconnects.add(cause);
            }
        });
        client.start();
    }

    @Test
    void handshakesOverTlsWithARelayWhoseCertificateNamesTheHost() throws Exception {
        InetSocketAddress address = startRelay(leaf("relay", "localhost"), ClientAuth.NONE);

        connect(address, ClientTls.sslContext(Optional.of(dir.resolve("ca.pem")), Optional.empty(), Optional.empty()));

        await("ready over TLS").atMost(Duration.ofSeconds(10)).until(client::isReady);
        assertThat(client.config().tls()).isTrue();
    }

    @Test
    void refusesARelayWhoseCertificateNamesAnotherHost() throws Exception {
        InetSocketAddress address = startRelay(leaf("relay", "elsewhere.test"), ClientAuth.NONE);

        connect(address, ClientTls.sslContext(Optional.of(dir.resolve("ca.pem")), Optional.empty(), Optional.empty()));

        await("a failed handshake").atMost(Duration.ofSeconds(10)).until(() -> !disconnects.isEmpty());
        assertThat(disconnects.get(0)).hasRootCauseInstanceOf(java.security.cert.CertificateException.class);
        assertThat(disconnects.get(0)).isInstanceOfAny(SSLHandshakeException.class,
                io.netty.handler.codec.DecoderException.class);
        assertThat(client.isReady()).isFalse();
    }

    @Test
    void presentsItsCertificateWhenTheRelayRequiresOne() throws Exception {
        InetSocketAddress address = startRelay(leaf("relay", "localhost"), ClientAuth.REQUIRE);
        X509Bundle task = leaf("task-1", "task-1.test");

        connect(address, ClientTls.sslContext(Optional.of(dir.resolve("ca.pem")),
                Optional.of(write("task.pem", task.getCertificatePathPEM())),
                Optional.of(write("task-key.pem", task.getPrivateKeyPEM()))));

        await("ready with mutual TLS").atMost(Duration.ofSeconds(10)).until(client::isReady);
    }

    @Test
    void certificateWithoutKeyIsAConfigurationError() {
        assertThatThrownBy(() -> ClientTls.sslContext(Optional.empty(), Optional.of(dir.resolve("c.pem")),
                Optional.empty())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both");
        assertThatThrownBy(() -> ClientTls.sslContext(Optional.of(dir.resolve("missing.pem")), Optional.empty(),
                Optional.empty())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing.pem");
    }
}
