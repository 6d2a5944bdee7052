package io.jetstream.kafka.relay.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads a YAML document into the flat {@code dotted.key -> string} map that Kafka's
 * {@code ConfigDef} validates, so that every error can name the key as the user wrote it.
 *
 * <ul>
 *   <li>nested maps join their keys with dots: {@code listener: {port: 7070}} becomes
 *       {@code listener.port = "7070"}; a key may also be written dotted at any level;</li>
 *   <li>a list of scalars becomes a comma-separated string (ConfigDef's LIST syntax), so an
 *       element may not contain a comma; an empty list becomes {@code ""};</li>
 *   <li>scalars become their text; {@code null} and empty maps become {@code ""} (which
 *       {@link MemberLists} reads as "member declared without keys");</li>
 *   <li>a key reached twice (duplicate, or nested and dotted spellings of the same key) is an
 *       error, as are lists of maps, which have no flat spelling.</li>
 * </ul>
 *
 * @see org.apache.kafka.common.config.ConfigDef
 */
public final class YamlFlattener {

    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private YamlFlattener() {
    }

    /**
     * Reads and flattens a YAML file.
     *
     * @throws RelayConfigException if the file cannot be read, is not YAML, or cannot be flattened
     */
    public static Map<String, String> flatten(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return flatten(MAPPER.readTree(in), file.toString());
        } catch (NoSuchFileException e) {
            throw new RelayConfigException(file.toString(), "file not found", e);
        } catch (JacksonException e) {
            throw new RelayConfigException(file.toString(), "not valid YAML: " + e.getOriginalMessage()
                    + locationOf(e), e);
        } catch (IOException e) {
            throw new RelayConfigException(file.toString(), "cannot read file: " + e, e);
        }
    }

    /** Flattens YAML text; {@code source} names it in error messages. */
    public static Map<String, String> flatten(String yaml, String source) {
        try {
            return flatten(MAPPER.readTree(yaml), source);
        } catch (JacksonException e) {
            throw new RelayConfigException(source, "not valid YAML: " + e.getOriginalMessage() + locationOf(e), e);
        }
    }

    private static Map<String, String> flatten(JsonNode root, String source) {
        Map<String, String> flat = new LinkedHashMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return flat;
        }
        if (!root.isObject()) {
            throw new RelayConfigException(source, List.of(new ConfigProblem("",
                    "the document must be a map of keys to values, not a " + root.getNodeType())));
        }
        List<ConfigProblem> problems = new ArrayList<>();
        walk("", root, flat, problems);
        if (!problems.isEmpty()) {
            throw new RelayConfigException(source, problems);
        }
        return flat;
    }

    private static void walk(String prefix, JsonNode node, Map<String, String> flat, List<ConfigProblem> problems) {
        if (node.isObject() && node.size() > 0) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String name = field.getKey().strip();
                if (name.isEmpty()) {
                    problems.add(new ConfigProblem(prefix, "Empty key under " + (prefix.isEmpty() ? "the top level" : prefix)));
                    continue;
                }
                walk(prefix.isEmpty() ? name : prefix + "." + name, field.getValue(), flat, problems);
            }
            return;
        }
        String value;
        if (node.isArray()) {
            value = joinList(prefix, node, problems);
            if (value == null) {
                return;
            }
        } else if (node.isObject() || node.isNull()) {
            value = "";
        } else {
            value = node.asText();
        }
        if (flat.putIfAbsent(prefix, value) != null) {
            problems.add(new ConfigProblem(prefix, "Duplicate configuration key " + prefix
                    + " (written twice, e.g. both nested and dotted)"));
        }
    }

    private static String joinList(String key, JsonNode list, List<ConfigProblem> problems) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : list) {
            if (item.isContainerNode()) {
                problems.add(new ConfigProblem(key, "Invalid value for configuration " + key
                        + ": list elements must be plain values, not maps or lists"));
                return null;
            }
            String text = item.isNull() ? "" : item.asText().strip();
            if (text.contains(",")) {
                problems.add(new ConfigProblem(key, "Invalid value " + text + " for configuration " + key
                        + ": a list element must not contain ','"));
                return null;
            }
            items.add(text);
        }
        return String.join(",", items);
    }

    private static String locationOf(JacksonException e) {
        return e.getLocation() == null ? ""
                : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }
}
