package io.jetstream.kafka.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.relay.admin.DirectMemory;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.AdminClient;
import io.jetstream.kafka.relay.testing.TestConfigs;
import io.jetstream.kafka.relay.testing.TestOnlyEchoPipelineFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RelayServerTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final RelayMetrics metrics = new RelayMetrics("relay-test");
    private RelayServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.shutdownNow();
        }
        metrics.close();
    }

    private RelayServer.BoundAddresses start(Map<String, Object> props, DataPipelineFactory dataPath) throws IOException {
        server = new RelayServer(new RelayConfig(props), metrics, dataPath);
        return server.start();
    }

    private RelayServer.BoundAddresses start(DataPipelineFactory dataPath) throws IOException {
        return start(TestConfigs.plaintext("relay-test"), dataPath);
    }

    private static String echo(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
        byte[] reply = socket.getInputStream().readNBytes(text.length());
        return new String(reply, StandardCharsets.UTF_8);
    }

    @Test
    void bindsFreePortsAndRunsTheDataPipelineHandlers() throws Exception {
        RelayServer.BoundAddresses bound = start(new TestOnlyEchoPipelineFactory());

        assertThat(bound.data().getPort()).isPositive();
        assertThat(bound.admin().getPort()).isPositive().isNotEqualTo(bound.data().getPort());
        assertThat(server.health().status()).isEqualTo(RelayHealth.Status.UP);
        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            assertThat(echo(socket, "hello relay")).isEqualTo("hello relay");
            assertThat(metrics.connections(RoleLabel.PENDING).get()).isEqualTo(1);
        }
        await("connection to be uncounted").atMost(WAIT)
                .until(() -> metrics.connections(RoleLabel.PENDING).get() == 0);
    }

    @Test
    void dataPipelineGetsTheServersConfigMetricsAndBuffer() throws Exception {
        TestOnlyEchoPipelineFactory dataPath = new TestOnlyEchoPipelineFactory();
        RelayServer.BoundAddresses bound = start(dataPath);

        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            assertThat(socket.isConnected()).isTrue();
            DataPipelineContext context = dataPath.context.get(10, TimeUnit.SECONDS);
            assertThat(context.metrics()).isSameAs(metrics);
            assertThat(context.relayBuffer()).isSameAs(server.relayBuffer());
            assertThat(context.config().relayId()).isEqualTo("relay-test");
            assertThat(context.health()).isSameAs(server.health());
            assertThat(context.peerConnector()).isNotNull();
        }
    }

    @Test
    void adminAnswersHealthMetrics404And405() throws Exception {
        AdminClient admin = new AdminClient(start(new TestOnlyEchoPipelineFactory()).admin());

        HttpResponse<String> health = admin.get("/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.headers().firstValue("content-type")).contains("application/json; charset=utf-8");
        assertThat(health.body()).startsWith("{\"status\":\"UP\",\"relayId\":\"relay-test\",");

        HttpResponse<String> scrape = admin.get("/metrics");
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.headers().firstValue("content-type")).contains("text/plain; version=0.0.4; charset=utf-8");
        assertThat(scrape.body()).contains("# TYPE jetstream_relay_errors_total counter\n",
                "jetstream_relay_info{relay_id=\"relay-test\",");

        assertThat(admin.get("/nope").statusCode()).isEqualTo(404);
        assertThat(admin.get("/health/extra").statusCode()).isEqualTo(404);
        assertThat(admin.get("/metrics?name=x").statusCode()).isEqualTo(200);

        HttpResponse<String> post = admin.send("POST", "/health", "x");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).contains("GET");
        assertThat(admin.send("DELETE", "/metrics", "").statusCode()).isEqualTo(405);
    }

    @Test
    void healthIsDegradedButServingWhileDirectMemoryIsAboveTheConfiguredShare() throws Exception {
        Map<String, Object> props = TestConfigs.plaintext("relay-test");
        props.put("health.direct.memory.degraded.ratio", 0.05);
        AdminClient admin = new AdminClient(start(props, new TestOnlyEchoPipelineFactory()).admin());
        DirectMemory memory = DirectMemory.ofThisProcess();
        long needed = Math.max(0, (long) (0.05 * memory.maxBytes()) - memory.usedBytes()) + (1 << 20);
        java.nio.ByteBuffer pressure = java.nio.ByteBuffer.allocateDirect((int) Math.min(Integer.MAX_VALUE, needed));
        try {
            HttpResponse<String> health = admin.get("/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"DEGRADED\"", "\"directMemoryMaxBytes\":");
            assertThat(server.health().status()).isEqualTo(RelayHealth.Status.UP);
            String scrape = admin.get("/metrics").body();
            assertThat(scrape).contains("jetstream_relay_direct_memory_used_bytes ");
            assertThat(scrape.lines().filter(l -> l.startsWith("jetstream_relay_direct_memory_max_bytes "))
                    .map(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))))
                    .containsExactly((double) memory.maxBytes());
        } finally {
            io.netty.util.internal.PlatformDependent.freeDirectBuffer(pressure);
        }
        // Back to UP once the memory is returned: RelayHealthTest (other tests' pooled buffers may stay here).
    }

    @Test
    void adminRefusesOversizedRequests() throws Exception {
        AdminClient admin = new AdminClient(start(new TestOnlyEchoPipelineFactory()).admin());

        assertThat(admin.send("POST", "/health", "x".repeat(64 * 1024)).statusCode()).isEqualTo(413);
    }

    @Test
    void gracefulShutdownReportsDrainingAndWaitsForInFlightBatches() throws Exception {
        TestOnlyEchoPipelineFactory dataPath = new TestOnlyEchoPipelineFactory();
        RelayServer.BoundAddresses bound = start(dataPath);
        AdminClient admin = new AdminClient(bound.admin());
        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            assertThat(echo(socket, "x")).isEqualTo("x");
            assertThat(server.relayBuffer().tryReserve(1000)).isTrue();

            CompletableFuture<Boolean> shutdown = CompletableFuture.supplyAsync(
                    () -> server.shutdownGracefully(Duration.ofSeconds(20)));

            assertThat(dataPath.drainStarted.get(10, TimeUnit.SECONDS).gracePeriod()).isEqualTo(Duration.ofSeconds(20));
            await("/health to report DRAINING").atMost(WAIT).until(() -> admin.get("/health").statusCode() == 503);
            assertThat(admin.get("/health").body()).contains("\"status\":\"DRAINING\"", "\"inflightBatches\":1");
            assertThat(shutdown).isNotDone();

            server.relayBuffer().release(1000);

            assertThat(shutdown.get(10, TimeUnit.SECONDS)).as("drained").isTrue();
            assertThat(server.health().status()).isEqualTo(RelayHealth.Status.DOWN);
            assertThat(socket.getInputStream().read()).as("connection closed").isEqualTo(-1);
        }
    }

    @Test
    void drainDeadlineClosesConnectionsAndReportsTheAbandonedBatches() throws Exception {
        start(new TestOnlyEchoPipelineFactory());
        assertThat(server.relayBuffer().tryReserve(10)).isTrue();

        assertThat(server.shutdownGracefully(Duration.ofMillis(50))).isFalse();
        assertThat(server.awaitTermination(Duration.ZERO)).isTrue();
    }

    @Test
    void shutdownIsIdempotentAndSafeFromSeveralThreads() throws Exception {
        start(new TestOnlyEchoPipelineFactory());

        CompletableFuture<Void> first = CompletableFuture.runAsync(server::close);
        CompletableFuture<Void> second = CompletableFuture.runAsync(server::close);
        CompletableFuture.allOf(first, second).get(20, TimeUnit.SECONDS);
        server.close();
        server.shutdownNow();

        assertThat(server.terminationFuture()).isDone();
        assertThat(server.health().status()).isEqualTo(RelayHealth.Status.DOWN);
    }

    @Test
    void startsOnlyOnceAndMayBeStoppedBeforeStarting() throws Exception {
        RelayServer unused = new RelayServer(new RelayConfig(TestConfigs.plaintext("r")), metrics,
                new TestOnlyEchoPipelineFactory());
        assertThat(unused.shutdownGracefully(Duration.ofSeconds(1))).isTrue();
        assertThatThrownBy(unused::start).isInstanceOf(IllegalStateException.class);

        start(new TestOnlyEchoPipelineFactory());
        assertThatThrownBy(server::start).hasMessage("a RelayServer starts once; it is RUNNING");
    }

    @Test
    void bindFailureNamesTheListenerAndReleasesEverything() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Map<String, Object> props = TestConfigs.plaintext("relay-test");
            props.put(RelayConfig.ADMIN_PORT, taken.getLocalPort());

            assertThatThrownBy(() -> start(props, new TestOnlyEchoPipelineFactory()))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("Cannot bind the admin listener to /127.0.0.1:" + taken.getLocalPort());
            assertThat(server.terminationFuture()).isDone();
            assertThat(server.health().status()).isEqualTo(RelayHealth.Status.DOWN);
        }
    }

    @Test
    void refusingDataPathClosesDataConnectionsAndCountsThem() throws Exception {
        RelayServer.BoundAddresses bound = start(new RefusingDataPipelineFactory());

        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            socket.setSoTimeout(10_000);
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(metrics.errors(ErrorKind.DATA_PATH_UNAVAILABLE).get()).isEqualTo(1);
        assertThat(new AdminClient(bound.admin()).get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void silentConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        Map<String, Object> props = TestConfigs.plaintext("relay-test");
        props.put(RelayConfig.IDLE_TIMEOUT_MS, 1000);
        props.put(RelayConfig.HEARTBEAT_INTERVAL_MS, 100);
        RelayServer.BoundAddresses bound = start(props, new TestOnlyEchoPipelineFactory());

        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            assertThat(in.read()).isEqualTo(-1);
        }
        assertThat(metrics.errors(ErrorKind.IDLE_TIMEOUT).get()).isEqualTo(1);
    }

    @Test
    void inboundMessageNoHandlerConsumesIsReleasedCountedAndClosed() throws Exception {
        DataPipelineFactory readsButIgnores = (channel, context) -> channel.pipeline().addLast(
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) throws Exception {
                        ctx.read();
                        super.channelActive(ctx);
                    }
                });
        RelayServer.BoundAddresses bound = start(readsButIgnores);

        try (Socket socket = new Socket(bound.data().getAddress(), bound.data().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(new byte[] {1, 2, 3});
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(metrics.errors(ErrorKind.INTERNAL).get()).isEqualTo(1);
    }
}
