package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.MountedSecret;
import io.jetstream.kafka.relay.testing.TestPki;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.jetstream.kafka.transport.ClientTls;
import io.jetstream.kafka.transport.ReloadingSslContext;
import io.jetstream.kafka.transport.ReloadingTlsFiles;
import io.jetstream.kafka.transport.TlsFiles;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificate renewal and CA rotation on running relays and tasks, as cert-manager does it: the PEM
 * files change in mounted Secrets ({@link MountedSecret}) while a sender streams batches through
 * {@code relay-a1} → {@code relay-b1} (mutual TLS on every hop) to a subscriber; nothing restarts.
 * New connections present the new certificates (their serials are read from handshakes), the
 * connections made before carry on without an error, and files that cannot be used leave the
 * certificate in use.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TlsRotationIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration RELOAD_INTERVAL = Duration.ofMillis(200);
    /**
     * Time for the last answers once the pump stops, within the relays' {@code ack.timeout.ms} (set
     * to it): on a saturated 2-core machine a batch can wait tens of seconds, which is not what this
     * test is about.
     */
    private static final Duration ANSWERS = Duration.ofSeconds(120);
    private static final String TOPIC = "orders";
    private static EventLoopGroup clients;

    @TempDir
    Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicBoolean pumping = new AtomicBoolean();
    private Thread pump;

    @BeforeAll
    static void startClients() {
        clients = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopClients() {
        clients.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    @AfterEach
    void stop() throws Exception {
        stopPump();
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        closeables.add(0, closeable); // closed in reverse order: clients before relays
        return closeable;
    }

    @Test
    void certificatesAndTheCaRotateUnderTrafficWithoutARestart() throws Exception {
        TestPki ca1 = new TestPki(dir.resolve("ca1"), "Test CA 1");
        TestPki ca2 = new TestPki(dir.resolve("ca2"), "Test CA 2");
        MountedSecret a1Secret = new MountedSecret(dir.resolve("a1"));
        MountedSecret b1Secret = new MountedSecret(dir.resolve("b1"));
        MountedSecret taskSecret = new MountedSecret(dir.resolve("task"));
        X509Bundle a1First = ca1.leaf("relay-a1", "localhost");
        X509Bundle b1First = ca1.leaf("relay-b1", "localhost");
        a1Secret.publish(ca1.caPem(), a1First);
        b1Secret.publish(ca1.caPem(), b1First);
        X509Bundle firstTaskCert = ca1.leaf("task", "task.test");
        taskSecret.publish(ca1.caPem(), firstTaskCert);

        Map<String, Object> b1Config = TestRelay.egress("relay-b1");
        b1Config.putAll(tls(b1Secret));
        TestRelay b1 = keep(TestRelay.start(b1Config));
        TestRelay a1 = keep(TestRelay.start(withAll(TestRelay.route(TestRelay.config("relay-a1"), "direct",
                List.of("localhost:" + b1.data().getPort())), tls(a1Secret))));
        SslContext taskTls = ClientTls.sslContext(files(taskSecret), RELOAD_INTERVAL, Clock.system(),
                ReloadingTlsFiles.Listener.NONE);
        TestSubscriber subscriber = keep(new TestSubscriber("sink-task-0", address(b1), 0, 1, clients, taskTls));
        TestSender sender = keep(new TestSender("source-task-0", address(a1), clients, taskTls));
        await("clients ready over mutual TLS").atMost(WAIT).until(() -> subscriber.isReady() && sender.isReady());
        assertThat(serialAt(a1, taskSecret)).isEqualTo(a1First.getCertificate().getSerialNumber());
        startPump(sender);
        await("traffic flows").atMost(WAIT).until(() -> sender.oks() > 100);

        // 1. Every party learns CA 2 next to CA 1.
        String bothCas = ca1.caPem() + ca2.caPem();
        a1Secret.publish(bothCas, a1First);
        b1Secret.publish(bothCas, b1First);
        taskSecret.publish(bothCas, firstTaskCert);
        await("both relays take the new trust").atMost(WAIT)
                .until(() -> a1.metrics().tlsReloads().get() == 1 && b1.metrics().tlsReloads().get() == 1);

        // 2. The relays move to certificates of CA 2: new connections see them.
        X509Bundle a1Renewed = ca2.leaf("relay-a1", "localhost");
        a1Secret.publish(bothCas, a1Renewed);
        await("a new connection to a1 sees its renewed certificate").atMost(WAIT)
                .until(() -> serialAt(a1, taskSecret).equals(a1Renewed.getCertificate().getSerialNumber()));
        assertThat(a1.metrics().tlsCertificateExpiry().get())
                .isEqualTo(a1Renewed.getCertificate().getNotAfter().getTime() / 1000.0);
        X509Bundle b1Renewed = ca2.leaf("relay-b1", "localhost");
        b1Secret.publish(bothCas, b1Renewed);
        await("a new connection to b1 sees its renewed certificate").atMost(WAIT)
                .until(() -> serialAt(b1, taskSecret).equals(b1Renewed.getCertificate().getSerialNumber()));

        // 3. The task moves to a certificate of CA 2, then everyone drops CA 1.
        X509Bundle taskRenewed = ca2.leaf("task", "task.test");
        taskSecret.publish(bothCas, taskRenewed);
        a1Secret.publish(ca2.caPem(), a1Renewed);
        b1Secret.publish(ca2.caPem(), b1Renewed);
        taskSecret.publish(ca2.caPem(), taskRenewed);
        await("both relays drop CA 1").atMost(WAIT)
                .until(() -> a1.metrics().tlsReloads().get() == 3 && b1.metrics().tlsReloads().get() == 3);

        // A client still presenting the first certificate (CA 1) is refused now...
        double refusedBefore = a1.metrics().errors(ErrorKind.TLS_HANDSHAKE).get();
        SslContext staleTls = ClientTls.sslContext(Optional.of(writeTrust(bothCas)),
                Optional.of(writePem("stale.pem", firstTaskCert.getCertificatePathPEM())),
                Optional.of(writePem("stale-key.pem", firstTaskCert.getPrivateKeyPEM())));
        keep(new TestSender("source-task-9", address(a1), clients, staleTls));
        await("a1 refuses a certificate of CA 1").atMost(WAIT)
                .until(() -> a1.metrics().errors(ErrorKind.TLS_HANDSHAKE).get() > refusedBefore);
        // ... while the task's context, built once at start, connects: it presents its renewed certificate.
        TestSender newcomer = keep(new TestSender("source-task-1", address(a1), clients, taskTls));
        await("a new task connection over the renewed files").atMost(WAIT).until(newcomer::isReady);

        // The connections made before any of it carried the traffic throughout.
        long answeredSoFar = sender.oks();
        await("traffic still flows").atMost(WAIT).until(() -> sender.oks() > answeredSoFar + 100);
        stopPump();
        await("an answer for every batch").atMost(ANSWERS).until(() -> sender.unanswered() == 0);
        assertThat(sender.disconnects).as("the sender's first connection stayed up").isEmpty();
        assertThat(sender.oks()).isEqualTo(sender.sent.size());
        assertThat(subscriber.orderViolations()).isEmpty();
        assertThat(a1.metrics().connections(RoleLabel.RELAY_OUT).get()).isEqualTo(1);
        assertThat(a1.metrics().tlsReloadFailures().get()).isZero();
        assertThat(b1.metrics().tlsReloadFailures().get()).isZero();

        // 4. a1's next-hop connection, made again after b1 restarts on its port, presents a1's renewed
        //    certificate (b1 trusts only CA 2 now) and trusts b1's.
        b1.close();
        closeables.remove(b1);
        b1Config.put("listener.port", b1.data().getPort());
        TestRelay b1Again = keep(TestRelay.start(b1Config));
        await("a1 reconnects to b1 and the subscriber to b1").atMost(WAIT)
                .until(() -> b1Again.metrics().connections(RoleLabel.RELAY_IN).get() == 1
                        && b1Again.metrics().connections(RoleLabel.SINK_TASK).get() == 1 && subscriber.isReady());
        long oksBefore = sender.oks();
        for (int i = 0; i < 20; i++) {
            sender.send(TOPIC, i % 6, 5, 200);
        }
        await("new batches cross the renewed hop").atMost(WAIT).until(() -> sender.oks() == oksBefore + 20);
    }

    @Test
    void filesThatCannotBeUsedLeaveTheCertificateInUseAndAreCounted() throws Exception {
        TestPki pki = new TestPki(dir.resolve("ca"), "Test CA");
        MountedSecret a1Secret = new MountedSecret(dir.resolve("a1"));
        MountedSecret taskSecret = new MountedSecret(dir.resolve("task"));
        X509Bundle first = pki.leaf("relay-a1", "localhost");
        a1Secret.publish(pki.caPem(), first);
        taskSecret.publish(pki.caPem(), pki.leaf("task", "task.test"));
        TestRelay a1 = keep(TestRelay.start(withAll(TestRelay.egress("relay-a1"), tls(a1Secret))));
        SslContext taskTls = ClientTls.sslContext(files(taskSecret), RELOAD_INTERVAL, Clock.system(),
                ReloadingTlsFiles.Listener.NONE);
        TestSubscriber subscriber = keep(new TestSubscriber("sink-task-0", address(a1), 0, 1, clients, taskTls));
        TestSender sender = keep(new TestSender("source-task-0", address(a1), clients, taskTls));
        await("clients ready").atMost(WAIT).until(() -> subscriber.isReady() && sender.isReady());
        startPump(sender);
        BigInteger inUse = first.getCertificate().getSerialNumber();

        // A certificate file cut in the middle (a copy caught half-way).
        X509Bundle renewed = pki.leaf("relay-a1", "localhost");
        String pem = renewed.getCertificatePathPEM();
        a1Secret.publish(Map.of(MountedSecret.CA, pki.caPem(), MountedSecret.CERT, pem.substring(0, pem.length() / 2),
                MountedSecret.KEY, renewed.getPrivateKeyPEM()));
        await("the half-written file is refused").atMost(WAIT)
                .until(() -> a1.metrics().tlsReloadFailures().get() == 1);
        assertThat(serialAt(a1, taskSecret)).isEqualTo(inUse);

        // A renewed certificate with the key of another one (the key file not renewed yet).
        a1Secret.publish(Map.of(MountedSecret.CA, pki.caPem(), MountedSecret.CERT, pem,
                MountedSecret.KEY, first.getPrivateKeyPEM()));
        await("the mismatched key is refused").atMost(WAIT)
                .until(() -> a1.metrics().tlsReloadFailures().get() == 2);
        assertThat(serialAt(a1, taskSecret)).isEqualTo(inUse);
        assertThat(a1.metrics().tlsReloads().get()).isZero();

        // The complete pair is taken.
        a1Secret.publish(pki.caPem(), renewed);
        await("the renewed certificate is served").atMost(WAIT)
                .until(() -> serialAt(a1, taskSecret).equals(renewed.getCertificate().getSerialNumber()));
        assertThat(a1.metrics().tlsReloads().get()).isEqualTo(1);
        assertThat(a1.metrics().scrape()).contains("jetstream_relay_tls_reload_failures_total 2.0");

        stopPump();
        await("an answer for every batch").atMost(ANSWERS).until(() -> sender.unanswered() == 0);
        assertThat(sender.disconnects).isEmpty();
        assertThat(sender.oks()).isEqualTo(sender.sent.size()).isPositive();
        assertThat(subscriber.orderViolations()).isEmpty();
    }

    /** Sends a batch about every 2 ms from a thread of its own while the connection takes them, until {@link #stopPump}. */
    private void startPump(TestSender sender) {
        pumping.set(true);
        pump = new Thread(() -> {
            int i = 0;
            while (pumping.get()) {
                if (sender.isWritable() && sender.send(TOPIC, i % 6, 5, 200) >= 0) {
                    i++;
                }
                LockSupport.parkNanos(2_000_000);
            }
        }, "tls-rotation-pump");
        pump.start();
    }

    private void stopPump() throws InterruptedException {
        pumping.set(false);
        if (pump != null) {
            pump.join(10_000);
            pump = null;
        }
    }

    /**
     * The serial of the certificate a relay presents to a new connection, read from the handshake of
     * a fresh client (no session to resume) with the identity the task's Secret holds now.
     */
    private static BigInteger serialAt(TestRelay relay, MountedSecret identity) throws Exception {
        ReloadingSslContext probe = ClientTls.sslContext(files(identity), Duration.ZERO, Clock.system(),
                ReloadingTlsFiles.Listener.NONE);
        int port = relay.data().getPort();
        Channel channel = new Bootstrap().group(clients).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(probe.newHandler(ch.alloc(), "localhost", port));
                    }
                }).connect("localhost", port).sync().channel();
        try {
            SslHandler tls = channel.pipeline().get(SslHandler.class);
            tls.handshakeFuture().sync();
            return ((X509Certificate) tls.engine().getSession().getPeerCertificates()[0]).getSerialNumber();
        } finally {
            channel.close().sync();
        }
    }

    private static TlsFiles files(MountedSecret secret) {
        return TlsFiles.of(Optional.of(secret.file(MountedSecret.CA)), Optional.of(secret.file(MountedSecret.CERT)),
                Optional.of(secret.file(MountedSecret.KEY)));
    }

    private static Map<String, Object> tls(MountedSecret secret) {
        Map<String, Object> props = new HashMap<>();
        props.put("tls.enabled", true);
        props.put("tls.cert.file", secret.file(MountedSecret.CERT).toString());
        props.put("tls.key.file", secret.file(MountedSecret.KEY).toString());
        props.put("tls.ca.file", secret.file(MountedSecret.CA).toString());
        props.put("tls.client.auth", "required");
        props.put("tls.reload.interval.ms", RELOAD_INTERVAL.toMillis());
        props.put("listener.host", "localhost");
        props.put("ack.timeout.ms", ANSWERS.toMillis());
        return props;
    }

    private Path writeTrust(String pem) throws Exception {
        return writePem("stale-ca.pem", pem);
    }

    private Path writePem(String name, String pem) throws Exception {
        return java.nio.file.Files.writeString(dir.resolve(name), pem);
    }

    private static InetSocketAddress address(TestRelay relay) {
        return InetSocketAddress.createUnresolved("localhost", relay.data().getPort());
    }

    private static Map<String, Object> withAll(Map<String, Object> props, Map<String, Object> extra) {
        props.putAll(extra);
        return props;
    }
}
