package io.jetstream.kafka.bench;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.jetstream.kafka.testkit.site.JavaProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A relay as a separate JVM on a host ({@code RelayMain --config <yaml>}, what the container runs),
 * its configuration written as YAML next to its log. Started and stopped whole: a relay with other
 * routes is a new process.
 */
final class RelayProcess implements AutoCloseable {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern ROUTE_BYTES_OUT = Pattern.compile(
            "^jetstream_relay_route_bytes_out_total\\{([^}]*)}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern ROUTE_BATCHES_OUT = Pattern.compile(
            "^jetstream_relay_route_batches_out_total\\{([^}]*)}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern ROUTE_LABEL = Pattern.compile("route=\"([^\"]*)\"");

    private final String id;
    private final InetSocketAddress data;
    private final InetSocketAddress admin;
    private final Map<String, String> config;
    private final JavaProcess process;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    RelayProcess(String id, InetSocketAddress data, InetSocketAddress admin, Map<String, String> config,
                 List<String> commandPrefix, Path workDir) throws IOException {
        this.id = id;
        this.data = data;
        this.admin = admin;
        this.config = new TreeMap<>(config);
        Files.createDirectories(workDir);
        Path yaml = workDir.resolve("relay-" + id + ".yaml");
        Files.writeString(yaml, "# relay " + id + " of the WAN benchmark, from config/relay-demo.yaml\n"
                + YAML.writeValueAsString(new LinkedHashMap<>(this.config)));
        this.process = new JavaProcess("relay-" + id, "io.jetstream.kafka.relay.RelayMain",
                List.of("-Xms128m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), List.of("--config", yaml.toString()),
                JavaProcess.currentClasspath(), workDir.resolve("logs").resolve("relay-" + id + ".out"),
                commandPrefix);
    }

    /** Starts the relay and waits until {@code GET /health} answers 200. */
    void start() throws IOException, TimeoutException, InterruptedException {
        process.start();
        URI health = URI.create("http://" + admin.getHostString() + ":" + admin.getPort() + "/health");
        try {
            await("relay " + id + " healthy at " + health)
                    .atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("relay " + id + " exited:\n" + process.tail(30));
                        }
                        return http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                    });
        } catch (ConditionTimeoutException e) {
            throw new TimeoutException(e.getMessage() + "\n" + process.tail(30));
        }
    }

    /** The relay's {@code GET /metrics} text (Prometheus format); empty when it does not answer. */
    String metricsText() {
        try {
            URI metrics = URI.create("http://" + admin.getHostString() + ":" + admin.getPort() + "/metrics");
            return http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException | RuntimeException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Bytes sent onto each route so far (the ingress relay's {@code jetstream_relay_route_bytes_out_total}). */
    Map<String, Long> routeBytesOut() {
        return perRoute(ROUTE_BYTES_OUT);
    }

    /** Batches sent onto each route so far (the ingress relay's {@code jetstream_relay_route_batches_out_total}). */
    Map<String, Long> routeBatchesOut() {
        return perRoute(ROUTE_BATCHES_OUT);
    }

    private Map<String, Long> perRoute(Pattern counter) {
        Map<String, Long> bytes = new TreeMap<>();
        try {
            Matcher m = counter.matcher(metricsText());
            while (m.find()) {
                Matcher route = ROUTE_LABEL.matcher(m.group(1));
                if (route.find()) {
                    bytes.merge(route.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
                }
            }
        } catch (RuntimeException e) {
            // a relay that does not answer reports no route bytes; the uplink counters still do
        }
        return bytes;
    }

    String id() {
        return id;
    }

    InetSocketAddress dataAddress() {
        return data;
    }

    InetSocketAddress adminAddress() {
        return admin;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String dataEndpoint() {
        return data.getHostString() + ":" + data.getPort();
    }

    Map<String, String> config() {
        return config;
    }

    java.nio.file.Path safepointLog() {
        return process.safepointLog();
    }

    long pid() {
        return process.pid();
    }

    JavaProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(15));
    }
}
