package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.testing.ManualClock;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates, keys and CAs renewed in their PEM files while a TLS server and client run over
 * loopback: new connections take them once the check interval has passed (a manual clock moves it),
 * connections already open keep working, and files that cannot be used leave the material in use.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReloadingSslContextTest {

    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static EventLoopGroup group;
    private static X509Bundle ca1;
    private static X509Bundle ca2;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock();
    private final List<Path> serverFailures = new CopyOnWriteArrayList<>();
    private final List<TlsMaterial> serverReloads = new CopyOnWriteArrayList<>();
    /** Serial of each client certificate the server saw, in handshake order. */
    private final BlockingQueue<BigInteger> clientSerials = new LinkedBlockingQueue<>();
    private final List<Channel> open = new CopyOnWriteArrayList<>();
    private TlsFiles serverFiles;
    private TlsFiles clientFiles;
    private ReloadingSslContext server;
    private ReloadingSslContext client;
    private Channel listener;

    @BeforeAll
    static void startLoop() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        ca1 = ca("CN=Test CA 1");
        ca2 = ca("CN=Test CA 2");
    }

    @AfterAll
    static void stopLoop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    @BeforeEach
    void start() throws Exception {
        serverFiles = new TlsFiles(Optional.of(dir.resolve("server-ca.pem")), Optional.of(dir.resolve("server.pem")),
                Optional.of(dir.resolve("server-key.pem")), Optional.empty());
        clientFiles = new TlsFiles(Optional.of(dir.resolve("client-ca.pem")), Optional.of(dir.resolve("client.pem")),
                Optional.of(dir.resolve("client-key.pem")), Optional.empty());
        write(serverFiles, ca1, leaf(ca1, "relay", "localhost"));
        write(clientFiles, ca1, leaf(ca1, "task", "task.test"));
        server = new ReloadingSslContext(ReloadingTlsFiles.load(serverFiles, INTERVAL, clock,
                new ReloadingTlsFiles.Listener() {
                    @Override
                    public void reloaded(TlsMaterial material) {
                        serverReloads.add(material);
                    }

                    @Override
                    public void reloadFailed(Path file, Exception cause) {
                        serverFailures.add(file);
                    }
                }),
                m -> SslContextBuilder.forServer(m.key().orElseThrow(), m.chain()).sslProvider(SslProvider.JDK)
                        .trustManager(m.trust()).clientAuth(ClientAuth.REQUIRE).build());
        client = ClientTls.sslContext(clientFiles, INTERVAL, clock, ReloadingTlsFiles.Listener.NONE);
        listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler tls = server.newHandler(ch.alloc());
                        ch.pipeline().addLast(tls, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
                                if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                                    clientSerials.add(serialOf(tls));
                                }
                                super.userEventTriggered(ctx, event);
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg); // echo
                            }
                        });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    @AfterEach
    void stop() {
        open.forEach(Channel::close);
        listener.close().syncUninterruptibly();
    }

    /** What one new connection saw: the server's certificate serial, and the client's as the server saw it. */
    private record Handshake(BigInteger server, BigInteger client, Channel channel) {
    }

    private Handshake connect() throws Exception {
        BlockingQueue<String> echoes = new LinkedBlockingQueue<>();
        int port = ((java.net.InetSocketAddress) listener.localAddress()).getPort();
        Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(client.newHandler(ch.alloc(), "localhost", port),
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                        echoes.add(msg.toString(StandardCharsets.UTF_8));
                                    }
                                });
                    }
                }).connect("127.0.0.1", port).sync().channel();
        open.add(channel);
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        tls.handshakeFuture().sync();
        BigInteger clientSerial = clientSerials.poll(10, TimeUnit.SECONDS);
        channel.attr(ECHOES).set(echoes);
        return new Handshake(serialOf(tls), clientSerial, channel);
    }

    private static final io.netty.util.AttributeKey<BlockingQueue<String>> ECHOES =
            io.netty.util.AttributeKey.valueOf("echoes");

    /** Sends text over an open connection and returns the server's echo. */
    private static String echo(Channel channel, String text) throws Exception {
        channel.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8)).sync();
        StringBuilder received = new StringBuilder();
        while (received.length() < text.length()) {
            String part = channel.attr(ECHOES).get().poll(10, TimeUnit.SECONDS);
            assertThat(part).as("echo of " + text).isNotNull();
            received.append(part);
        }
        return received.toString();
    }

    @Test
    void newConnectionsUseRenewedCertificatesOnceTheCheckIntervalHasPassedAndOpenOnesKeepWorking()
            throws Exception {
        Handshake before = connect();
        assertThat(before.server()).isEqualTo(serial(serverFiles));
        X509Bundle renewedServer = leaf(ca1, "relay", "localhost");
        X509Bundle renewedClient = leaf(ca1, "task", "task.test");
        write(serverFiles, ca1, renewedServer);
        write(clientFiles, ca1, renewedClient);

        Handshake tooEarly = connect();
        assertThat(tooEarly.server()).as("files are looked at once per interval").isEqualTo(before.server());
        assertThat(tooEarly.client()).isEqualTo(before.client());

        clock.advance(INTERVAL);
        Handshake after = connect();

        assertThat(after.server()).isEqualTo(renewedServer.getCertificate().getSerialNumber())
                .isNotEqualTo(before.server());
        assertThat(after.client()).isEqualTo(renewedClient.getCertificate().getSerialNumber())
                .isNotEqualTo(before.client());
        assertThat(echo(before.channel(), "still here")).as("a connection made before the renewal")
                .isEqualTo("still here");
        assertThat(serverReloads).hasSize(1);
        assertThat(serverFailures).isEmpty();
    }

    @Test
    void aHalfWrittenCertificateFileLeavesTheCertificateInUseUntilItIsComplete() throws Exception {
        BigInteger inUse = connect().server();
        X509Bundle renewed = leaf(ca1, "relay", "localhost");
        String pem = renewed.getCertificatePathPEM();
        Files.writeString(serverFiles.keyFile().orElseThrow(), renewed.getPrivateKeyPEM());
        Files.writeString(serverFiles.certFile().orElseThrow(), pem.substring(0, pem.length() / 2));

        clock.advance(INTERVAL);
        assertThat(connect().server()).isEqualTo(inUse);
        clock.advance(INTERVAL);
        assertThat(connect().server()).isEqualTo(inUse);
        assertThat(serverFailures).as("refused once per content, naming the file")
                .containsExactly(serverFiles.certFile().orElseThrow());

        Files.writeString(serverFiles.certFile().orElseThrow(), pem);
        clock.advance(INTERVAL);
        assertThat(connect().server()).isEqualTo(renewed.getCertificate().getSerialNumber());
    }

    @Test
    void aCertificateRenewedBeforeItsKeyIsNotTakenUntilTheKeyFollows() throws Exception {
        BigInteger inUse = connect().server();
        X509Bundle renewed = leaf(ca1, "relay", "localhost");
        Files.writeString(serverFiles.certFile().orElseThrow(), renewed.getCertificatePathPEM());

        clock.advance(INTERVAL);
        assertThat(connect().server()).as("the old key does not belong to the new certificate").isEqualTo(inUse);
        assertThat(serverFailures).containsExactly(serverFiles.keyFile().orElseThrow());

        Files.writeString(serverFiles.keyFile().orElseThrow(), renewed.getPrivateKeyPEM());
        clock.advance(INTERVAL);
        assertThat(connect().server()).isEqualTo(renewed.getCertificate().getSerialNumber());
    }

    @Test
    void aCaAddedToTheTrustFilesLetsBothSidesMoveToCertificatesItSigns() throws Exception {
        connect();
        String bothCas = ca1.getCertificatePEM() + ca2.getCertificatePEM();
        X509Bundle serverOfCa2 = leaf(ca2, "relay", "localhost");
        X509Bundle clientOfCa2 = leaf(ca2, "task", "task.test");
        // The server moves to CA 2 before the client trusts it: new connections fail, and say why.
        write(serverFiles, ca1, serverOfCa2);
        Files.writeString(serverFiles.caFile().orElseThrow(), bothCas);
        clock.advance(INTERVAL);
        assertThatThrownBy(this::connect).hasStackTraceContaining("PKIX");

        // The client learns CA 2 and moves to a certificate it signs; the server trusts only CA 2 now.
        write(clientFiles, ca2, clientOfCa2);
        Files.writeString(clientFiles.caFile().orElseThrow(), bothCas);
        Files.writeString(serverFiles.caFile().orElseThrow(), ca2.getCertificatePEM());
        clock.advance(INTERVAL);
        Handshake after = connect();

        assertThat(after.server()).isEqualTo(serverOfCa2.getCertificate().getSerialNumber());
        assertThat(after.client()).isEqualTo(clientOfCa2.getCertificate().getSerialNumber());
    }

    @Test
    void filesThatCannotBeUsedAtStartAreAConfigurationErrorNamingTheFile() throws Exception {
        Files.writeString(serverFiles.keyFile().orElseThrow(), leaf(ca1, "other", "localhost").getPrivateKeyPEM());

        assertThatThrownBy(() -> ReloadingTlsFiles.load(serverFiles, INTERVAL, clock,
                ReloadingTlsFiles.Listener.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(serverFiles.keyFile().orElseThrow().toString())
                .hasMessageContaining("does not belong to the certificate");
    }

    private static X509Bundle ca(String subject) throws Exception {
        return base().subject(subject).setIsCertificateAuthority(true)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.keyCertSign).buildSelfSigned();
    }

    private static CertificateBuilder base() {
        Instant now = Instant.now();
        return new CertificateBuilder().ecp256().notBefore(now.minus(1, ChronoUnit.HOURS))
                .notAfter(now.plus(1, ChronoUnit.DAYS));
    }

    private static X509Bundle leaf(X509Bundle issuer, String cn, String dns) throws Exception {
        return base().subject("CN=" + cn).addSanDnsName(dns)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth().buildIssuedBy(issuer);
    }

    private static void write(TlsFiles files, X509Bundle trust, X509Bundle leaf) throws Exception {
        Files.writeString(files.caFile().orElseThrow(), trust.getCertificatePEM());
        Files.writeString(files.keyFile().orElseThrow(), leaf.getPrivateKeyPEM());
        Files.writeString(files.certFile().orElseThrow(), leaf.getCertificatePathPEM());
    }

    private static BigInteger serial(TlsFiles files) {
        return ReloadingTlsFiles.load(files, INTERVAL, new ManualClock(), ReloadingTlsFiles.Listener.NONE).current()
                .leaf().orElseThrow().getSerialNumber();
    }

    private static BigInteger serialOf(SslHandler tls) throws Exception {
        return ((X509Certificate) tls.engine().getSession().getPeerCertificates()[0]).getSerialNumber();
    }
}
