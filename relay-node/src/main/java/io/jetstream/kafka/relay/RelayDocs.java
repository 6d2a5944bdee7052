package io.jetstream.kafka.relay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.jetstream.kafka.relay.config.RelayConfigDoc;
import io.jetstream.kafka.relay.metrics.RelayMetricsDoc;

/**
 * Keeps the generated sections of {@code docs/relay.md} (configuration and metric references)
 * in step with the code. Each section sits between
 * {@code <!-- BEGIN GENERATED: name -->} and {@code <!-- END GENERATED: name -->}; the rest of the
 * file is hand-written.
 *
 * <p>Rewrite with {@code java -cp relay-node/target/jetstream-relay-node-<v>-all.jar
 * io.jetstream.kafka.relay.RelayDocs docs/relay.md}, or run {@code RelayDocsTest} with
 * {@code -Djetstream.docs.update=true}.
 */
public final class RelayDocs {

    private static final Map<String, Supplier<String>> SECTIONS = new LinkedHashMap<>();

    static {
        SECTIONS.put("config-reference", RelayConfigDoc::render);
        SECTIONS.put("metrics-reference", RelayMetricsDoc::render);
    }

    private RelayDocs() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: RelayDocs <path to docs/relay.md>");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        Files.writeString(file, update(Files.readString(file, StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    /** The document with every generated section regenerated. */
    public static String update(String document) {
        String updated = document;
        for (Map.Entry<String, Supplier<String>> section : SECTIONS.entrySet()) {
            updated = replace(updated, section.getKey(), section.getValue().get());
        }
        return updated;
    }

    static String begin(String name) {
        return "<!-- BEGIN GENERATED: " + name + " (RelayDocs; change the code, not this text) -->";
    }

    static String end(String name) {
        return "<!-- END GENERATED: " + name + " -->";
    }

    private static String replace(String document, String name, String content) {
        int begin = document.indexOf(begin(name));
        int end = document.indexOf(end(name));
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the document lacks the markers " + begin(name) + " ... " + end(name));
        }
        return document.substring(0, begin + begin(name).length()) + "\n\n" + content.strip() + "\n\n"
                + document.substring(end);
    }
}
