package io.jetstream.kafka.testkit.site;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * A small typed client for the Kafka Connect REST API: what an operator does with curl, used by the
 * tests, the demo and the benchmarks to deploy connectors from the JSON files in {@code config/}.
 *
 * <p>Thread-safe (the JDK HttpClient is). Every call times out after 30 s; an error status raises
 * {@link ConnectRestException} carrying Connect's message.
 */
public final class ConnectRestClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public ConnectRestClient(URI base) {
        this.base = base;
    }

    public URI baseUrl() {
        return base;
    }

    /** Reads a connector JSON file (a flat object, the body of PUT /connectors/{name}/config). */
    public static Map<String, String> readConnectorConfig(Path file) throws IOException {
        Map<String, Object> raw = JSON.readValue(Files.readString(file), new TypeReference<>() { });
        Map<String, String> config = new LinkedHashMap<>();
        raw.forEach((k, v) -> config.put(k, v == null ? null : String.valueOf(v)));
        return config;
    }

    /** The worker's Kafka version, as {@code GET /} reports it. */
    public String version() throws IOException, InterruptedException {
        return JSON.readTree(send("GET", "/", null)).path("version").asText();
    }

    public List<String> connectors() throws IOException, InterruptedException {
        return JSON.readValue(send("GET", "/connectors", null), new TypeReference<>() { });
    }

    /** Class names of the connector plugins the worker loaded. */
    public List<String> connectorPlugins() throws IOException, InterruptedException {
        List<String> classes = new ArrayList<>();
        for (JsonNode plugin : JSON.readTree(send("GET", "/connector-plugins?connectorsOnly=true", null))) {
            classes.add(plugin.get("class").asText());
        }
        return classes;
    }

    /** Creates or updates a connector: {@code PUT /connectors/{name}/config}. */
    public void putConnectorConfig(String name, Map<String, String> config) throws IOException, InterruptedException {
        send("PUT", "/connectors/" + encode(name) + "/config", JSON.writeValueAsString(config));
    }

    /**
     * The connector's configuration as stored: {@code GET /connectors/{name}/config}, with config
     * provider placeholders unresolved.
     */
    public Map<String, String> connectorConfig(String name) throws IOException, InterruptedException {
        return JSON.readValue(send("GET", "/connectors/" + encode(name) + "/config", null), new TypeReference<>() { });
    }

    /** The task configurations as stored: {@code GET /connectors/{name}/tasks}, by task id. */
    public Map<Integer, Map<String, String>> taskConfigs(String name) throws IOException, InterruptedException {
        Map<Integer, Map<String, String>> tasks = new LinkedHashMap<>();
        for (JsonNode task : JSON.readTree(send("GET", "/connectors/" + encode(name) + "/tasks", null))) {
            tasks.put(task.path("id").path("task").asInt(), JSON.convertValue(task.path("config"),
                    new TypeReference<Map<String, String>>() { }));
        }
        return tasks;
    }

    /** Deploys {@code file} with {@code overrides} applied on top, and returns the config sent. */
    public Map<String, String> deploy(String name, Path file, Map<String, String> overrides)
            throws IOException, InterruptedException {
        Map<String, String> config = readConnectorConfig(file);
        config.putAll(overrides);
        putConnectorConfig(name, config);
        return config;
    }

    public ConnectorStatus status(String name) throws IOException, InterruptedException {
        JsonNode node = JSON.readTree(send("GET", "/connectors/" + encode(name) + "/status", null));
        JsonNode connector = node.get("connector");
        List<ConnectorStatus.Task> tasks = new ArrayList<>();
        for (JsonNode task : node.path("tasks")) {
            tasks.add(new ConnectorStatus.Task(task.get("id").asInt(), task.get("state").asText(),
                    task.path("worker_id").asText(null), task.path("trace").asText(null)));
        }
        return new ConnectorStatus(node.get("name").asText(), connector.get("state").asText(),
                connector.path("worker_id").asText(null), connector.path("trace").asText(null), tasks);
    }

    /**
     * Waits until the connector and at least {@code tasks} tasks are RUNNING; fails at once with the
     * trace when the connector or a task is FAILED.
     */
    public ConnectorStatus awaitRunning(String name, int tasks, Duration timeout)
            throws TimeoutException, InterruptedException {
        return await("connector " + name + " RUNNING with " + tasks + " task(s)").atMost(timeout).ignoreExceptions()
                .until(() -> {
                    ConnectorStatus status = status(name);
                    String failure = status.firstFailure();
                    if (failure != null) {
                        throw new IllegalStateException("Connector failed: " + failure);
                    }
                    return status.isRunningWith(tasks) ? status : null;
                }, Objects::nonNull);
    }

    /** Validates a config against a plugin: {@code PUT /connector-plugins/{class}/config/validate}. */
    public ConfigValidation validate(String connectorClass, Map<String, String> config)
            throws IOException, InterruptedException {
        String simpleName = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
        JsonNode node = JSON.readTree(send("PUT", "/connector-plugins/" + encode(simpleName) + "/config/validate",
                JSON.writeValueAsString(config)));
        Map<String, List<String>> errors = new LinkedHashMap<>();
        for (JsonNode entry : node.path("configs")) {
            JsonNode value = entry.path("value");
            List<String> messages = new ArrayList<>();
            value.path("errors").forEach(e -> messages.add(e.asText()));
            if (!messages.isEmpty()) {
                errors.put(value.path("name").asText(), messages);
            }
        }
        return new ConfigValidation(node.path("error_count").asInt(), errors);
    }

    public void deleteConnector(String name) throws IOException, InterruptedException {
        send("DELETE", "/connectors/" + encode(name), null);
    }

    public void restartConnector(String name, boolean includeTasks) throws IOException, InterruptedException {
        send("POST", "/connectors/" + encode(name) + "/restart?includeTasks=" + includeTasks + "&onlyFailed=false", "");
    }

    public void restartTask(String name, int task) throws IOException, InterruptedException {
        send("POST", "/connectors/" + encode(name) + "/tasks/" + task + "/restart", "");
    }

    public void pause(String name) throws IOException, InterruptedException {
        send("PUT", "/connectors/" + encode(name) + "/pause", "");
    }

    public void resume(String name) throws IOException, InterruptedException {
        send("PUT", "/connectors/" + encode(name) + "/resume", "");
    }

    /**
     * Stops a connector (KIP-875): its tasks are shut down, committing their offsets, and its
     * config stays; {@link #resume} starts them again from the committed offsets.
     */
    public void stop(String name) throws IOException, InterruptedException {
        send("PUT", "/connectors/" + encode(name) + "/stop", "");
    }

    /**
     * Creates a connector in the given initial state ({@code POST /connectors}, KIP-980): with
     * {@code STOPPED} its offsets can be set ({@link #alterOffsets}) before any task reads.
     */
    public void create(String name, Map<String, String> config, String initialState)
            throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("config", config);
        body.put("initial_state", initialState);
        send("POST", "/connectors", JSON.writeValueAsString(body));
    }

    /** A connector's committed offsets ({@code GET /connectors/{name}/offsets}, KIP-875): the "offsets" array. */
    public JsonNode offsets(String name) throws IOException, InterruptedException {
        return JSON.readTree(send("GET", "/connectors/" + encode(name) + "/offsets", null)).path("offsets");
    }

    /**
     * Sets a stopped connector's offsets ({@code PATCH /connectors/{name}/offsets}, KIP-875) from a
     * JSON array of {@code {"partition": {...}, "offset": {...}}}.
     */
    public void alterOffsets(String name, JsonNode offsets) throws IOException, InterruptedException {
        send("PATCH", "/connectors/" + encode(name) + "/offsets",
                JSON.writeValueAsString(Map.of("offsets", offsets)));
    }

    private String send(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(CALL_TIMEOUT)
                .header("Accept", "application/json");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 400) {
            throw new ConnectRestException(method + " " + path, response.statusCode(), response.body());
        }
        return response.body();
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
