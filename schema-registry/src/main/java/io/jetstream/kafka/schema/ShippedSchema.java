package io.jetstream.kafka.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the source site tells the destination about one schema id of its registry: either the
 * schema to register and translate to ({@link #translated}), or that records with this id pass
 * unchanged ({@link #passed}: a JSON Schema or Protobuf schema, or an id the source registry does
 * not know, so the bytes were never a registry record).
 *
 * <p>On the wire it is an entry of a TOPIC_METADATA frame's config map (covered by its MAC when
 * integrity is on): key {@code jetstream.schema.<source id>}, value a JSON object
 * {@code {"type":"AVRO","schema":"...","references":0}} or {@code {"pass":"<why>"}}. The
 * destination takes these entries out before it applies the topic's configs.
 *
 * @param sourceId the id in the source registry
 * @param schema the schema to register at the destination, or null when the id passes unchanged
 * @param passReason why records with this id pass unchanged, or null when they are translated
 */
public record ShippedSchema(int sourceId, RegisteredSchema schema, String passReason) {

    /** Prefix of the config entries that carry schemas. */
    public static final String KEY_PREFIX = "jetstream.schema.";

    private static final ObjectMapper JSON = new ObjectMapper();

    public ShippedSchema {
        if (sourceId < 0) {
            throw new IllegalArgumentException("source id " + sourceId + " < 0");
        }
        if ((schema == null) == (passReason == null)) {
            throw new IllegalArgumentException("exactly one of schema and passReason");
        }
    }

    public static ShippedSchema translated(int sourceId, RegisteredSchema schema) {
        return new ShippedSchema(sourceId, Objects.requireNonNull(schema, "schema"), null);
    }

    public static ShippedSchema passed(int sourceId, String reason) {
        return new ShippedSchema(sourceId, null, Objects.requireNonNull(reason, "reason"));
    }

    public boolean isTranslated() {
        return schema != null;
    }

    public String key() {
        return KEY_PREFIX + sourceId;
    }

    /** The entry's value. */
    public String encode() {
        ObjectNode node = JSON.createObjectNode();
        if (schema != null) {
            node.put("type", schema.type());
            node.put("schema", schema.schema());
            node.put("references", schema.references());
        } else {
            node.put("pass", passReason);
        }
        return node.toString();
    }

    /** Whether a config key carries a schema. */
    public static boolean isSchemaKey(String key) {
        return key.startsWith(KEY_PREFIX);
    }

    /**
     * The schemas among a metadata frame's configs.
     *
     * @throws IllegalArgumentException naming the entry that does not decode
     */
    public static Map<Integer, ShippedSchema> decodeAll(Map<String, String> configs) {
        Map<Integer, ShippedSchema> out = new HashMap<>();
        configs.forEach((key, value) -> {
            if (isSchemaKey(key)) {
                ShippedSchema shipped = decode(key, value);
                out.put(shipped.sourceId(), shipped);
            }
        });
        return out;
    }

    /** The configs without the schema entries: what is applied to the topic. */
    public static Map<String, String> topicConfigs(Map<String, String> configs) {
        Map<String, String> out = new LinkedHashMap<>();
        configs.forEach((key, value) -> {
            if (!isSchemaKey(key)) {
                out.put(key, value);
            }
        });
        return out;
    }

    static ShippedSchema decode(String key, String value) {
        int id;
        try {
            id = Integer.parseInt(key.substring(KEY_PREFIX.length()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("schema entry " + key + " does not name a schema id");
        }
        try {
            JsonNode node = JSON.readTree(value);
            if (node != null && node.hasNonNull("pass")) {
                return passed(id, node.get("pass").asText());
            }
            if (node != null && node.hasNonNull("type") && node.hasNonNull("schema")) {
                return translated(id, new RegisteredSchema(node.get("type").asText(), node.get("schema").asText(),
                        node.path("references").asInt(0)));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("schema entry " + key + " does not decode: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("schema entry " + key + " has neither a schema nor a pass reason");
    }
}
