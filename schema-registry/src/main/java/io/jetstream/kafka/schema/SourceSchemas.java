package io.jetstream.kafka.schema;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The source site's half of schema translation: finds the schema ids in record keys and values,
 * looks each id up in the source registry once (the client caches), and keeps per topic the
 * schemas the destination needs, to be shipped with the topic's metadata ({@link #entries}).
 * Shipping happens once per topic and change, not per record: {@link #observe} says when a topic
 * gained an id.
 *
 * <p>What each id becomes ({@link ShippedSchema}): an Avro schema is translated; a JSON Schema or
 * Protobuf schema passes unchanged (its records keep the source id); an id the source registry
 * does not know (404) passes unchanged too, since such bytes were never a registry record. A
 * registry that cannot be reached is the caller's to retry: nothing is shipped or sent for the
 * record until its id is known.
 *
 * <p>Memory: at most {@link #MAX_SCHEMAS_PER_TOPIC} ids per topic (the least recently seen leave;
 * one seen again is shipped again). Thread-safe: records arrive on the task thread, the metadata
 * publisher reads the entries on its own.
 */
public final class SourceSchemas {

    /** Most schema ids shipped with one topic's metadata. */
    public static final int MAX_SCHEMAS_PER_TOPIC = 100;
    /** Largest schema entry a metadata frame carries (a wire string). */
    static final int MAX_ENTRY_BYTES = 65_535;

    private final SchemaRegistryClient registry;
    private final Map<String, TopicSchemas> topics = new ConcurrentHashMap<>();
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong lookupFailures = new AtomicLong();
    private final AtomicLong passedIds = new AtomicLong();

    /** The ids of one topic, in the order they were last seen, and a generation that grows with each change. */
    private static final class TopicSchemas {
        final LinkedHashMap<Integer, ShippedSchema> ids = new LinkedHashMap<>(16, 0.75f, true);
        long generation;
        int lastId = WireFormat.NONE;
    }

    public SourceSchemas(SchemaRegistryClient registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Notes the schema ids of a record's key and value.
     *
     * @return whether {@code topic} gained an id (its metadata must be shipped again)
     * @throws SchemaRegistryException when the source registry cannot say what an id is (the record
     *     must not be sent before it can)
     */
    public boolean observe(String topic, byte[] key, byte[] value) throws SchemaRegistryException {
        boolean changed = observe(topic, WireFormat.schemaId(key));
        return observe(topic, WireFormat.schemaId(value)) | changed;
    }

    private boolean observe(String topic, int id) throws SchemaRegistryException {
        if (id == WireFormat.NONE) {
            return false;
        }
        TopicSchemas schemas = topics.computeIfAbsent(topic, t -> new TopicSchemas());
        synchronized (schemas) {
            if (schemas.lastId == id) {
                return false;
            }
            if (schemas.ids.get(id) != null) {
                schemas.lastId = id;
                return false;
            }
        }
        ShippedSchema shipped = lookUp(id);
        synchronized (schemas) {
            if (schemas.ids.put(id, shipped) != null) {
                return false; // another thread was first
            }
            if (schemas.ids.size() > MAX_SCHEMAS_PER_TOPIC) {
                Integer eldest = schemas.ids.keySet().iterator().next();
                schemas.ids.remove(eldest);
            }
            schemas.lastId = id;
            schemas.generation++;
            return true;
        }
    }

    private ShippedSchema lookUp(int id) throws SchemaRegistryException {
        lookups.incrementAndGet();
        ShippedSchema shipped;
        try {
            RegisteredSchema schema = registry.schemaById(id);
            shipped = schema.isAvro() ? ShippedSchema.translated(id, schema)
                    : ShippedSchema.passed(id, "a " + schema.type() + " schema: its records are not translated");
        } catch (SchemaRegistryException e) {
            if (e.kind() != SchemaRegistryException.Kind.NOT_FOUND) {
                lookupFailures.incrementAndGet();
                throw e;
            }
            shipped = ShippedSchema.passed(id, "unknown to the source registry: the bytes only look like a "
                    + "registry record");
        }
        if (!shipped.isTranslated()) {
            passedIds.incrementAndGet();
        }
        int bytes = shipped.encode().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ENTRY_BYTES) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.OTHER, 0, "Schema id " + id + " of the "
                    + "source registry takes " + bytes + " bytes to ship, more than a topic metadata entry carries ("
                    + MAX_ENTRY_BYTES + ")");
        }
        return shipped;
    }

    /** The schema entries to ship with the metadata of {@code topic} (config key to value). */
    public Map<String, String> entries(String topic) {
        TopicSchemas schemas = topics.get(topic);
        Map<String, String> out = new LinkedHashMap<>();
        if (schemas != null) {
            synchronized (schemas) {
                schemas.ids.values().forEach(s -> out.put(s.key(), s.encode()));
            }
        }
        return out;
    }

    /** Grows each time {@code topic} gains an id; 0 before its first. */
    public long generation(String topic) {
        TopicSchemas schemas = topics.get(topic);
        if (schemas == null) {
            return 0;
        }
        synchronized (schemas) {
            return schemas.generation;
        }
    }

    /** Ids looked up in the source registry. */
    public long lookups() {
        return lookups.get();
    }

    /** Lookups that failed (registry unreachable or refusing). */
    public long lookupFailures() {
        return lookupFailures.get();
    }

    /** Ids whose records pass unchanged (not Avro, or unknown to the source registry). */
    public long passedIds() {
        return passedIds.get();
    }
}
