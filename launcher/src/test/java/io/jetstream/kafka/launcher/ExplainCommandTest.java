package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExplainCommandTest {

    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** An HTTP server on loopback answering each path with its body (anything else: 404). */
    private String serve(Map<String, String> bodies) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = bodies.get(exchange.getRequestURI().toString());
            byte[] bytes = (body == null ? "{\"error_code\":404}" : body).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void optionsAreParsedAndCheckedNamingTheOptionAtFault() {
        ExplainCommand.Options options = Launcher.parse(ExplainCommand.class, "explain", "--connect",
                "http://a:8083/,http://b:8083", "--relay", "http://r:9100", "--json", "--timeout-ms", "250").options();
        assertThat(options.workers()).extracting(Object::toString).containsExactly("http://a:8083", "http://b:8083");
        assertThat(options.relays()).extracting(Object::toString).containsExactly("http://r:9100");
        assertThat(options.json()).isTrue();
        assertThat(options.timeout().toMillis()).isEqualTo(250);

        Launcher.Outcome missing = Launcher.run("explain");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.output()).contains("Missing required option: '--connect=URL[,URL..]'");
        Launcher.Outcome notUrl = Launcher.run("explain", "--connect", "connect-a:8083");
        assertThat(notUrl.exitCode()).isEqualTo(2);
        assertThat(notUrl.output()).contains("--connect: 'connect-a:8083' is not an http:// or https:// URL");
        Launcher.Outcome relay = Launcher.run("explain", "--connect", "http://a:8083", "--relay", "ftp://r");
        assertThat(relay.exitCode()).isEqualTo(2);
        assertThat(relay.output()).contains("--relay: 'ftp://r'");
        Launcher.Outcome timeout = Launcher.run("explain", "--connect", "http://a:8083", "--timeout-ms", "0");
        assertThat(timeout.exitCode()).isEqualTo(2);
        assertThat(timeout.output()).contains("--timeout-ms: 0 is not between 1 and 600000");
    }

    @Test
    void aWorkerAndARelayThatAnswerAreExplainedAndExit0() throws IOException {
        RelayMetrics relayMetrics = new RelayMetrics("a1");
        relayMetrics.decision(RelayMetrics.ROUTE_WEIGHT, "B", "direct").set(1);
        String url = serve(Map.of(
                ExplainCommand.CONNECTORS_PATH, "{}",
                ExplainCommand.TASKS_PATH, "{\"tasks\":[" + ExplainReportTest.SOURCE_TASK + "]}",
                ExplainCommand.METRICS_PATH, relayMetrics.scrape(),
                ExplainCommand.HEALTH_PATH, "{\"status\":\"DRAINING\",\"relayId\":\"a1\",\"dataConnections\":0,"
                        + "\"bufferedBytes\":0}"));

        Launcher.Outcome outcome = Launcher.run("explain", "--connect", url, "--relay", url);

        assertThat(outcome.exitCode()).as(outcome.output()).isZero();
        assertThat(outcome.output()).contains("jetstream-source task 0 (source-site, A -> B, zstd)")
                .contains("latency: 55 ms measured")
                .contains("environment: resembles grid cell default (40 Mbit/s, 25 ms one way, 1 KiB records,")
                .contains("binds: none - sending 3.9 MB/s")
                .contains("Relay " + url + " (a1, DRAINING, 0 data connections, 0 B buffered)")
                .contains("route direct: weight 1.00")
                .endsWith("OK: 2 of 2 endpoints answered, 1 JetStream task explained, 0 failed\n");

        Launcher.Outcome json = Launcher.run("explain", "--connect", url, "--json");
        assertThat(json.exitCode()).isZero();
        assertThat(json.output()).contains("\"ok\" : true").contains("\"measured_latency_ms\" : 55.4")
                .contains("\"resembles_cell\" : {").contains("\"binds\" : {");
    }

    @Test
    void aWorkerWithoutTheExtensionOrNotListeningExits1SayingWhy() throws IOException {
        String url = serve(Map.of(ExplainCommand.CONNECTORS_PATH, "{}"));
        String nobody = "http://127.0.0.1:" + closedPort();

        Launcher.Outcome outcome = Launcher.run("explain", "--connect", url + "," + nobody, "--timeout-ms", "30000");

        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(outcome.output()).contains("does not load the JetStream REST extension (rest.extension.classes="
                + "io.jetstream.kafka.connect.common.rest.JetstreamRestExtension")
                .contains("Connect worker " + nobody + "\n  not reachable: GET " + nobody + "/connectors")
                .endsWith("PROBLEM: 0 of 2 endpoints answered, 0 JetStream tasks explained, 0 failed\n");
    }
}
