package io.jetstream.kafka.relay.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * Renders the configuration reference (Markdown tables, one per group) from the key declarations,
 * so the documentation cannot drift from the code. {@code RelayDocs} writes it into
 * {@code docs/relay.md}; {@code RelayDocsTest} fails when the committed copy is stale.
 */
public final class RelayConfigDoc {

    private RelayConfigDoc() {
    }

    /** The reference in Markdown, one table per group, member keys with placeholders. */
    public static String render() {
        ConfigDef relay = RelayConfigDef.relay();
        List<ConfigKey> memberKeys = new ArrayList<>();
        memberKeys.addAll(inOrder(RelayConfigDef.stream("<id>")));
        memberKeys.addAll(inOrder(RelayConfigDef.destination("<destination>")));
        memberKeys.addAll(inOrder(RelayConfigDef.route("<destination>", "<route>")));
        memberKeys.addAll(inOrder(RelayConfigDef.configProviders()));
        memberKeys.addAll(inOrder(RelayConfigDef.configProvider("<name>")));

        List<String> groups = new ArrayList<>(relay.groups());
        memberKeys.stream().map(k -> k.group).filter(g -> !groups.contains(g)).distinct().forEach(groups::add);
        StringBuilder out = new StringBuilder();
        for (String group : groups) {
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

    /** Table-cell text: pipes escaped, and angle brackets so that {@code <id>} is not read as HTML. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;");
    }
}
