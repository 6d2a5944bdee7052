package io.jetstream.kafka.relay.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * Generates the configuration reference of {@code docs/relay.md} from the key declarations, so
 * the documentation cannot drift from the code. {@code RelayConfigDocTest} fails when the committed
 * section is stale.
 *
 * <p>Rewrite it with {@code java -cp ... io.jetstream.kafka.relay.config.RelayConfigDoc docs/relay.md}
 * or {@code mvn -pl relay-node -am test -Dtest=RelayConfigDocTest -Djetstream.docs.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
public final class RelayConfigDoc {

    public static final String BEGIN = "<!-- BEGIN GENERATED CONFIG REFERENCE: RelayConfigDoc, do not edit by hand -->";
    public static final String END = "<!-- END GENERATED CONFIG REFERENCE -->";

    private RelayConfigDoc() {
    }

    /** Rewrites the generated section of the Markdown file named by the first argument. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: RelayConfigDoc <path to docs/relay.md>");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        String updated = replaceSection(Files.readString(file, StandardCharsets.UTF_8), render());
        Files.writeString(file, updated, StandardCharsets.UTF_8);
    }

    /** The reference in Markdown, one table per group, member keys with placeholders. */
    public static String render() {
        ConfigDef relay = RelayConfigDef.relay();
        List<ConfigKey> memberKeys = new ArrayList<>();
        memberKeys.addAll(inOrder(RelayConfigDef.stream("<id>")));
        memberKeys.addAll(inOrder(RelayConfigDef.destination("<destination>")));
        memberKeys.addAll(inOrder(RelayConfigDef.route("<destination>", "<route>")));

        StringBuilder out = new StringBuilder();
        for (String group : relay.groups()) {
            out.append("\n#### ").append(group).append("\n\n")
                    .append("| Key | Type | Default | Valid values | Importance | Description |\n")
                    .append("|---|---|---|---|---|---|\n");
            inOrder(relay).stream().filter(k -> group.equals(k.group)).forEach(k -> row(out, k));
            memberKeys.stream().filter(k -> group.equals(k.group)).forEach(k -> row(out, k));
        }
        return out.toString();
    }

    private static List<ConfigKey> inOrder(ConfigDef def) {
        return def.configKeys().values().stream()
                .sorted(Comparator.comparingInt(k -> k.orderInGroup))
                .toList();
    }

    /** Replaces what lies between {@link #BEGIN} and {@link #END} in a document. */
    public static String replaceSection(String document, String generated) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("document lacks the markers " + BEGIN + " ... " + END);
        }
        return document.substring(0, begin + BEGIN.length()) + "\n" + generated + "\n" + document.substring(end);
    }

    /** The generated section of a document, as {@link #render()} would write it. */
    public static String section(String document) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("document lacks the markers " + BEGIN + " ... " + END);
        }
        String inner = document.substring(begin + BEGIN.length(), end);
        return inner.substring(1, inner.length() - 1);
    }

    private static void row(StringBuilder out, ConfigKey key) {
        out.append("| `").append(key.name).append("` | ")
                .append(key.type.name().toLowerCase(Locale.ROOT)).append(" | ")
                .append(cell(defaultOf(key))).append(" | ")
                .append(cell(key.validator == null ? "" : key.validator.toString())).append(" | ")
                .append(key.importance.name().toLowerCase(Locale.ROOT)).append(" | ")
                .append("**").append(cell(key.displayName)).append(".** ").append(cell(key.documentation))
                .append(" |\n");
    }

    private static String defaultOf(ConfigKey key) {
        if (!key.hasDefault()) {
            return "*required*";
        }
        Object value = key.defaultValue;
        if (value == null) {
            return "*none*";
        }
        if (value instanceof List<?> list) {
            return list.isEmpty() ? "`[]`" : "`" + String.join(",", list.stream().map(String::valueOf).toList()) + "`";
        }
        String text = ConfigDef.convertToString(value, key.type);
        if (text.isEmpty()) {
            return "`\"\"`";
        }
        if (key.name.endsWith("bytes") || key.name.endsWith("bytes.per.connection")) {
            long bytes = ((Number) value).longValue();
            return "`" + text + "` (" + humanBytes(bytes) + ")";
        }
        return "`" + text + "`";
    }

    private static String humanBytes(long bytes) {
        if (bytes % (1024L * 1024) == 0) {
            return bytes / (1024L * 1024) + " MiB";
        }
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " B";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
