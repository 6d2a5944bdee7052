package io.jetstream.kafka.relay.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Parses a Prometheus text exposition with the Prometheus project's own Python client parser
 * ({@code prometheus_client.parser.text_string_to_metric_families}, Debian's
 * {@code python3-prometheus-client}, which {@code .ci/run} installs): an independent implementation
 * of the format, so a scrape that passes it is one Prometheus reads.
 *
 * <p>Where the parser is missing: in CI ({@code CI=true}, where {@code .ci/run} installs it) the test
 * fails, saying what to install; elsewhere (a newcomer's {@code mvn -B verify}) it is skipped with a
 * loud line on the console naming what was not checked and how to get it. The check is of the
 * metrics' text format, not of the data path.
 */
public final class PrometheusParser {

    /** Debian's interpreter: the package installs the module for it, not for other Pythons on the path. */
    /** Python's json writes NaN and Infinity for such sample values. */
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final String INSTALL = "apt-get install --no-install-recommends python3-prometheus-client";
    private static final String SCRIPT = String.join("\n",
            "import json, sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "out = []",
            "for f in text_string_to_metric_families(sys.stdin.read()):",
            "    out.append({'name': f.name, 'type': f.type, 'help': f.documentation,",
            "                'samples': [{'name': s.name, 'labels': s.labels, 'value': s.value} for s in f.samples]})",
            "print(json.dumps(out))");

    /** One parsed family: its name (counters without {@code _total}), type, help and samples. */
    public record Family(String name, String type, String help, List<Sample> samples) {

        /** The value of the first sample named {@code name} whose labels include {@code labels}. */
        public double value(String name, Map<String, String> labels) {
            return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                    .mapToDouble(Sample::value).findFirst()
                    .orElseThrow(() -> new AssertionError("no sample " + name + labels + " in " + samples));
        }
    }

    /** One sample line, as the parser read it. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private PrometheusParser() {
    }

    /** Skips (not root) or fails (root) the calling test when the parser is not installed. */
    public static void requireInstalled() throws IOException, InterruptedException {
        boolean installed = Files.isExecutable(PYTHON)
                && run(List.of(PYTHON.toString(), "-c", "import prometheus_client.parser"), "").exitCode == 0;
        if (installed) {
            return;
        }
        String message = "the Prometheus text parser is not installed (" + INSTALL + ")";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(message + "; .ci/run installs it");
        }
        System.out.println("*** NOT CHECKED: /metrics against Prometheus' own text parser: " + message
                + " (bash .ci/run installs it) ***");
        Assumptions.abort("skipped: " + message);
    }

    /** The families of {@code exposition}, by name; fails the test when the parser rejects the text. */
    public static Map<String, Family> parse(String exposition) throws IOException, InterruptedException {
        Result result = run(List.of(PYTHON.toString(), "-c", SCRIPT), exposition);
        if (result.exitCode != 0) {
            Assertions.fail("the Prometheus parser rejected the exposition: " + result.stderr + "\n" + exposition);
        }
        Map<String, Family> families = new LinkedHashMap<>();
        for (JsonNode node : JSON.readTree(result.stdout)) {
            List<Sample> samples = new ArrayList<>();
            for (JsonNode sample : node.get("samples")) {
                Map<String, String> labels = new LinkedHashMap<>();
                sample.get("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
                samples.add(new Sample(sample.get("name").asText(), labels, sample.get("value").asDouble()));
            }
            Family family = new Family(node.get("name").asText(), node.get("type").asText(), node.get("help").asText(),
                    samples);
            if (families.put(family.name(), family) != null) {
                Assertions.fail("family " + family.name() + " appears twice in the exposition");
            }
        }
        return families;
    }

    private record Result(int exitCode, String stdout, String stderr) {
    }

    private static Result run(List<String> command, String stdin) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            Assertions.fail("the Prometheus parser did not finish within 60 s: " + command);
        }
        return new Result(process.exitValue(), new String(out.join(), StandardCharsets.UTF_8),
                new String(err.join(), StandardCharsets.UTF_8));
    }

    private static byte[] readAll(InputStream stream) {
        try (stream) {
            return stream.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
