package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.jetstream.kafka.relay.testing.AdminClient;
import io.jetstream.kafka.relay.testing.PrometheusParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged fat jar as an operator runs it: {@code java -jar ... --config FILE}, health and
 * metrics over HTTP, SIGTERM drains and stops; a bad file exits 2 naming the key.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RelayJarIT {

    private static final Pattern SERVING = Pattern.compile(
            "serving data on /127\\.0\\.0\\.1:(\\d+) \\(PLAINTEXT\\) and admin on http://127\\.0\\.0\\.1:(\\d+)/health");

    @TempDir
    Path dir;

    private Process process;
    private Path log;

    @AfterEach
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private void launch(Path config) throws Exception {
        Path jar = Path.of(System.getProperty("relay.jar", "target/relay.jar"));
        assertThat(jar).as("fat jar built by the package phase").exists();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        log = dir.resolve("relay.log");
        // Output to a file, not a pipe: Process.destroy() would close the pipe and lose the
        // lines the shutdown hook writes.
        process = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar.toString(), "--config", config.toString()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void startsServesHealthAndMetricsAndDrainsOnSigterm() throws Exception {
        Path config = Files.writeString(dir.resolve("relay.yaml"), """
                relay.id: it-relay
                listener: {host: 127.0.0.1, port: 0}
                admin: {host: 127.0.0.1, port: 0}
                tls.enabled: false
                io.threads: 1
                streams:
                  demo:
                    token: it-token-0123456789
                shutdown.drain.timeout.ms: 5000
                """);
        launch(config);

        await("the relay to report its ports").atMost(Duration.ofSeconds(60))
                .until(() -> SERVING.matcher(output()).find() || !process.isAlive());
        Matcher ports = SERVING.matcher(output());
        assertThat(ports.find()).as(output()).isTrue();
        AdminClient admin = new AdminClient(new InetSocketAddress("127.0.0.1", Integer.parseInt(ports.group(2))));

        HttpResponse<String> health = admin.get("/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"relayId\":\"it-relay\"");
        try (Socket data = new Socket("127.0.0.1", Integer.parseInt(ports.group(1)))) {
            data.setSoTimeout(10_000);
            // A length prefix above frame.max.bytes: the data path answers ERROR(FRAME_TOO_LARGE) and closes.
            data.getOutputStream().write(new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
            byte[] answer = data.getInputStream().readAllBytes();
            assertThat(answer.length).isGreaterThan(7);
            assertThat(answer[4]).as("ERROR frame").isEqualTo((byte) 10);
            assertThat(answer[6]).as("code FRAME_TOO_LARGE").isEqualTo((byte) 4);
        }
        HttpResponse<String> metrics = admin.get("/metrics");
        assertThat(metrics.headers().firstValue("content-type")).contains("text/plain; version=0.0.4; charset=utf-8");
        assertThat(metrics.body()).contains("jetstream_relay_errors_total{kind=\"frame_too_large\"} 1.0\n",
                "jetstream_relay_info{relay_id=\"it-relay\",version=\"");
        // The shaded jar carries the Prometheus client whole: the exposition parses with Prometheus'
        // own parser, and the client's JVM and process metrics come along.
        PrometheusParser.requireInstalled();
        assertThat(PrometheusParser.parse(metrics.body())).containsKeys("jetstream_relay_errors",
                "jvm_memory_used_bytes", "jvm_gc_collection_seconds", "process_cpu_seconds");

        process.toHandle().destroy(); // SIGTERM, leaving the output file open

        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped after SIGTERM").isTrue();
        assertThat(output()).contains("Shutdown signal received", "draining", "stopped in");
    }

    @Test
    void invalidConfigurationExitsWithTwo() throws Exception {
        Path config = Files.writeString(dir.resolve("bad.yaml"), "relay.id: r\nlistener.port: 70000\n");
        launch(config);

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(output()).contains("Invalid value 70000 for configuration listener.port");
    }
}
