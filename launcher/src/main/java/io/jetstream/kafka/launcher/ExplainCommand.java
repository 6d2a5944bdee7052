package io.jetstream.kafka.launcher;

import static io.jetstream.kafka.launcher.OptionChecks.requireWithin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./jetstream explain}: the current decisions of a running deployment and why. Asks each
 * Connect worker for its JetStream tasks' views ({@code GET /jetstream/tasks}, served by the
 * JetStream REST extension) and for the connectors' states ({@code GET /connectors}), and each
 * relay's admin endpoint for its routes ({@code GET /metrics}), and prints them in plain words or
 * as JSON. Exit codes: 0 all answered and no JetStream connector or task failed, 1 otherwise, 2 bad
 * usage.
 */
@Command(name = "explain", sortOptions = false,
        description = "what a running deployment does and why: batch caps, latency measured, the constraint"
                + " that binds and the environment it resembles, route weights, money spent (docs/monitoring.md)",
        footer = {"", "Exit code 0 when every worker and relay answered and no JetStream connector or task failed,"
                + " 1 otherwise, 2 for a bad option."})
final class ExplainCommand implements Callable<Integer> {

    static final String TASKS_PATH = "/jetstream/tasks";
    static final String CONNECTORS_PATH = "/connectors?expand=status&expand=info";
    static final String METRICS_PATH = "/metrics";
    static final String HEALTH_PATH = "/health";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final PrintStream out;

    @Spec
    private CommandSpec spec;

    @Option(names = "--connect", paramLabel = "URL[,URL..]", required = true, split = ",",
            description = "REST URLs of the Connect workers to ask, e.g. http://connect-a:8083 (every worker that"
                    + " runs JetStream tasks: each answers for its own)")
    private List<String> connect;

    @Option(names = "--relay", paramLabel = "ADMIN_URL[,..]", split = ",",
            description = "admin URLs of the relays whose routes to show (the ingress relays), e.g."
                    + " http://relay-a1:9100")
    private List<String> relay = new ArrayList<>();

    @Option(names = "--json", description = "print the answers as one JSON document instead of words")
    private boolean json;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "longest wait for each request (default ${DEFAULT-VALUE})")
    private long timeoutMs;

    @Mixin
    private HelpOption help;

    ExplainCommand(PrintStream out) {
        this.out = out;
    }

    /** Parsed and checked options. */
    record Options(List<URI> workers, List<URI> relays, boolean json, Duration timeout) {
    }

    Options options() {
        CommandLine cli = spec.commandLine();
        requireWithin(cli, "--timeout-ms", timeoutMs, 1, 600_000);
        return new Options(urls(cli, "--connect", connect), urls(cli, "--relay", relay), json,
                Duration.ofMillis(timeoutMs));
    }

    /** {@code values} as http(s) URLs without a trailing slash; anything else fails naming the option. */
    private static List<URI> urls(CommandLine cli, String option, List<String> values) {
        List<URI> urls = new ArrayList<>();
        for (String value : values) {
            String trimmed = value.strip();
            while (trimmed.endsWith("/")) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            }
            URI uri;
            try {
                uri = URI.create(trimmed);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(cli, option + ": '" + value + "' is not a URL: " + e.getMessage());
            }
            boolean http = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
            if (!http || uri.getHost() == null) {
                throw new ParameterException(cli, option + ": '" + value + "' is not an http:// or https:// URL with"
                        + " a host, e.g. http://127.0.0.1:8083");
            }
            urls.add(uri);
        }
        return urls;
    }

    @Override
    public Integer call() throws InterruptedException {
        Options options = options();
        ExplainReport report = explain(options);
        if (options.json()) {
            out.println(report.json().toPrettyString());
        } else {
            out.print(report.words());
        }
        return report.healthy() ? 0 : 1;
    }

    /** Asks every worker and relay of {@code options}. */
    static ExplainReport explain(Options options) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(options.timeout()).build();
        List<ExplainReport.WorkerReading> workers = new ArrayList<>();
        for (URI worker : options.workers()) {
            workers.add(readWorker(http, worker, options.timeout()));
        }
        List<ExplainReport.RelayReading> relays = new ArrayList<>();
        for (URI relay : options.relays()) {
            try {
                RelayRoutes routes = RelayRoutes.parse(get(http, relay, METRICS_PATH, options.timeout()));
                relays.add(new ExplainReport.RelayReading(relay.toString(), health(http, relay, options.timeout()),
                        routes, null));
            } catch (IOException e) {
                relays.add(ExplainReport.RelayReading.failed(relay.toString(), e.getMessage()));
            }
        }
        return new ExplainReport(workers, relays);
    }

    private static ExplainReport.WorkerReading readWorker(HttpClient http, URI worker, Duration timeout)
            throws InterruptedException {
        try {
            JsonNode connectors = MAPPER.readTree(get(http, worker, CONNECTORS_PATH, timeout));
            String tasksText;
            try {
                tasksText = get(http, worker, TASKS_PATH, timeout);
            } catch (NotFoundException e) {
                return ExplainReport.WorkerReading.failed(worker.toString(), "no " + TASKS_PATH + " here: the worker"
                        + " does not load the JetStream REST extension (rest.extension.classes="
                        + "io.jetstream.kafka.connect.common.rest.JetstreamRestExtension, docs/monitoring.md)");
            }
            JsonNode tasks = MAPPER.readTree(tasksText).path("tasks");
            return new ExplainReport.WorkerReading(worker.toString(), connectors, tasks, null);
        } catch (IOException e) {
            return ExplainReport.WorkerReading.failed(worker.toString(), e.getMessage());
        }
    }

    /**
     * A relay's {@code GET /health} (200 while serving, 503 while starting or draining: both say
     * its status); null when it does not answer with JSON, which the metrics already tell apart.
     */
    private static JsonNode health(HttpClient http, URI relay, Duration timeout) throws InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(relay + HEALTH_PATH))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = MAPPER.readTree(response.body());
            return body.hasNonNull("status") ? body : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** An HTTP 404: the path is not served. */
    private static final class NotFoundException extends IOException {
        NotFoundException(String message) {
            super(message);
        }
    }

    /** The body of {@code GET base+path}; an IOException naming the URL for anything but a 200. */
    private static String get(HttpClient http, URI base, String path, Duration timeout)
            throws IOException, InterruptedException {
        URI uri = URI.create(base + path);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException("GET " + uri + " failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()),
                    e);
        }
        if (response.statusCode() == 404) {
            throw new NotFoundException("GET " + uri + " answered 404");
        }
        if (response.statusCode() != 200) {
            String body = response.body();
            throw new IOException("GET " + uri + " answered " + response.statusCode() + ": "
                    + (body.length() > 200 ? body.substring(0, 200) + "..." : body));
        }
        return response.body();
    }
}
