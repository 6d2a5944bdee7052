package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.tools.attach.VirtualMachine;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.Ports;
import io.jetstream.kafka.testkit.site.SiteFiles;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped monitoring wired end to end, as an operator runs it: a real Prometheus (Debian's
 * {@code prometheus}) with the shipped alert rules scrapes the relays' {@code /metrics} and both
 * Connect workers through the real JMX exporter agent with {@code config/monitoring/jmx-exporter.yaml}
 * (the agent the build copies to {@code target/jmx-exporter/}, attached to the running workers); the
 * connectors' and Connect's series arrive under the names the rules use, no target-down alert is
 * active, and when a destination task fails (another subscriber takes its share at the egress relay)
 * {@code JetStreamConnectorTaskFailed} goes pending for that connector.
 *
 * <p>Skipped with a loud line where the prometheus binary is missing, failed in CI
 * ({@link PrometheusBinaries}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrometheusAlertsIT {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path AGENT = ROOT.resolve("target/jmx-exporter/jmx_prometheus_javaagent.jar");
    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;
    private static Process prometheus;
    private static URI prometheusUrl;

    @BeforeAll
    static void start() throws Exception {
        Path binary = PrometheusBinaries.prometheus("the alert rules in a real Prometheus against a relay and workers");
        assertThat(AGENT).as("the JMX exporter agent the build copies (mvn package at the root)").isRegularFile();
        env = ReplicationEnvironment.builder(workDir)
                .routes(1)
                .exactlyOnce(false)
                .sourceTasks(1)
                .sinkTasks(1)
                .start();
        env.awaitConnectorsRunning(Duration.ofSeconds(90));
        List<String> workers = new ArrayList<>();
        for (ConnectWorker worker : List.of(env.siteA().requireWorker(), env.siteB().requireWorker())) {
            workers.add(attachExporter(worker));
        }
        List<String> relays = new ArrayList<>();
        for (String relay : List.of("a1", "b1")) {
            InetSocketAddress admin = env.relay(relay).adminAddress();
            relays.add(admin.getHostString() + ":" + admin.getPort());
        }
        prometheus = startPrometheus(binary, relays, workers);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (env != null) {
            env.close();
        }
    }

    @Test
    @Order(1)
    void prometheusScrapesBothWorkersAndTheRelaysUnderTheNamesTheRulesUse() throws Exception {
        await("every target up").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .untilAsserted(() -> {
                    JsonNode targets = api("/api/v1/targets").path("data").path("activeTargets");
                    assertThat(targets).hasSize(4);
                    for (JsonNode target : targets) {
                        assertThat(target.path("health").asText()).as(target.toString()).isEqualTo("up");
                    }
                });
        await("connector and Connect series scraped").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions().untilAsserted(() -> {
                    assertThat(labelValues("kafka_connect_connector_task_status{status=\"running\"}", "connector"))
                            .containsExactlyInAnyOrder(ReplicationEnvironment.SOURCE_CONNECTOR,
                                    ReplicationEnvironment.SINK_CONNECTOR);
                    assertThat(labelValues("kafka_connect_worker_connector_running_task_count", "connector"))
                            .containsExactlyInAnyOrder(ReplicationEnvironment.SOURCE_CONNECTOR,
                                    ReplicationEnvironment.SINK_CONNECTOR);
                    assertThat(labelValues("kafka_connect_worker_connector_failed_task_count == 0", "connector"))
                            .hasSize(2);
                    assertThat(labelValues("jetstream_connect_paused{partition=\"\"}", "connector"))
                            .containsExactly(ReplicationEnvironment.SOURCE_CONNECTOR);
                    assertThat(labelValues("jetstream_connect_ack_timeouts_total", "connector"))
                            .containsExactly(ReplicationEnvironment.SOURCE_CONNECTOR);
                    assertThat(labelValues("jetstream_connect_heartbeat_age_seconds{partition=\"\"}", "connector"))
                            .containsExactly(ReplicationEnvironment.SINK_CONNECTOR);
                    assertThat(labelValues("kafka_connect_task_error_total_records_skipped", "connector"))
                            .hasSize(2);
                    assertThat(labelValues("jetstream_relay_route_state", "route")).contains("route-1");
                });
        assertThat(activeAlerts()).as("no target is down or missing, no task failed")
                .doesNotContain("JetStreamConnectWorkerDown", "JetStreamRelayDown", "JetStreamScrapeTargetsMissing",
                        "JetStreamConnectorTaskFailed");
    }

    @Test
    @Order(2)
    void aFailedDestinationTaskPutsTheTaskFailedAlertInPending() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            PeerClient intruder = new PeerClient(PeerClientConfig.builder(env.relay("b1").dataAddress(),
                            PeerRole.SUBSCRIBER, "intruder", ReplicationEnvironment.STREAM, ReplicationEnvironment.TOKEN)
                    .subscription(new SubscribeFrame(ReplicationEnvironment.STREAM, "intruder", 0, 1,
                            System.currentTimeMillis()))
                    .build(), group, new PeerClient.Listener() {
                        @Override
                        public void onFrame(PeerClient client, io.jetstream.kafka.core.protocol.Frame frame) {
                            ReferenceCountUtil.release(frame);
                        }
                    });
            intruder.start();
            try {
                await("destination task 0 FAILED, superseded").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).tasks().stream()
                                .anyMatch(t -> t.id() == 0 && "FAILED".equals(t.state())));
            } finally {
                intruder.close();
            }
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        await("JetStreamConnectorTaskFailed pending or firing for the destination connector").atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1)).ignoreExceptions().untilAsserted(() -> {
                    List<String> states = new ArrayList<>();
                    for (JsonNode alert : api("/api/v1/alerts").path("data").path("alerts")) {
                        if (alert.path("labels").path("alertname").asText().equals("JetStreamConnectorTaskFailed")) {
                            assertThat(alert.path("labels").path("connector").asText())
                                    .isEqualTo(ReplicationEnvironment.SINK_CONNECTOR);
                            assertThat(alert.path("labels").path("severity").asText()).isEqualTo("critical");
                            states.add(alert.path("state").asText());
                        }
                    }
                    assertThat(states).containsAnyOf("pending", "firing");
                });
        assertThat(labelValues("kafka_connect_connector_task_status{status=\"failed\"}", "connector"))
                .containsExactly(ReplicationEnvironment.SINK_CONNECTOR);
    }

    /**
     * Loads the JMX exporter agent into the running worker, serving on a free loopback port with the
     * shipped rules (the agent's argument is {@code host:port:config}, as in {@code -javaagent}).
     */
    private static String attachExporter(ConnectWorker worker) throws Exception {
        int port = Ports.freePort();
        String config = ROOT.resolve("config/monitoring/jmx-exporter.yaml").toString();
        VirtualMachine vm = VirtualMachine.attach(Long.toString(worker.process().pid()));
        try {
            vm.loadAgent(AGENT.toString(), "127.0.0.1:" + port + ":" + config);
        } finally {
            vm.detach();
        }
        return "127.0.0.1:" + port;
    }

    private static Process startPrometheus(Path binary, List<String> relays, List<String> workers)
            throws IOException {
        Path dir = workDir.resolve("prometheus");
        Files.createDirectories(dir);
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - " + ROOT.resolve("config/monitoring/prometheus-alerts.yaml"),
                "scrape_configs:",
                "  - job_name: jetstream-relays",
                "    static_configs:",
                "      - targets: " + quoted(relays),
                "  - job_name: jetstream-connect",
                "    static_configs:",
                "      - targets: " + quoted(workers),
                ""));
        int port = Ports.freePort();
        prometheusUrl = URI.create("http://127.0.0.1:" + port);
        Process process = new ProcessBuilder(binary.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        await("Prometheus ready at " + prometheusUrl).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("prometheus exited: "
                                + Files.readString(dir.resolve("prometheus.log")));
                    }
                    return get("/-/ready").statusCode() == 200;
                });
        return process;
    }

    private static String quoted(List<String> targets) {
        return targets.stream().map(t -> "\"" + t + "\"").toList().toString();
    }

    /** The names of the alerts Prometheus holds pending or firing now. */
    private static List<String> activeAlerts() throws IOException, InterruptedException {
        List<String> names = new ArrayList<>();
        api("/api/v1/alerts").path("data").path("alerts")
                .forEach(alert -> names.add(alert.path("labels").path("alertname").asText()));
        return names;
    }

    /** The values of {@code label} over the series an instant query returns. */
    private static List<String> labelValues(String query, String label) throws IOException, InterruptedException {
        JsonNode result = api("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
                .path("data").path("result");
        List<String> values = new ArrayList<>();
        result.forEach(series -> values.add(series.path("metric").path(label).asText()));
        return values;
    }

    private static JsonNode api(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = get(path);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(prometheusUrl.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
