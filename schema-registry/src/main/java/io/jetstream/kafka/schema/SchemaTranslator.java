package io.jetstream.kafka.schema;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The destination site's half of schema translation: keeps the schemas the source shipped
 * ({@link #accept}), registers each under the subject its strategy gives for the destination topic
 * in the destination registry, and rewrites the ids of record keys and values in place.
 *
 * <p>Never a wrong id: a record whose id cannot be translated right now raises a {@link Hold} and
 * nothing of its batch may be written: the schema was not shipped yet ({@link HoldKind#MISSING}),
 * the destination registry cannot be reached ({@link HoldKind#UNAVAILABLE}), a new registration
 * would overtake an earlier batch of the partition ({@link HoldKind#OUT_OF_ORDER}: registrations
 * replay in the source's order), the subject's compatibility refuses the schema
 * ({@link HoldKind#INCOMPATIBLE}) or it cannot be registered at all ({@link HoldKind#UNSUPPORTED}).
 * Records without the wire format, and ids the source marked to pass, stay as they are.
 *
 * <p>Threads: {@link #accept} on any thread; {@link #translate} on one thread at a time (the task's).
 */
public final class SchemaTranslator {

    /** Starts the message of a hold the source answers by shipping the topic's schemas again. */
    public static final String MISSING_PREFIX = "schema not shipped yet: ";

    /** Why a record cannot be translated now. */
    public enum HoldKind {
        MISSING, UNAVAILABLE, OUT_OF_ORDER, INCOMPATIBLE, UNSUPPORTED;

        /** Whether an operator must act before the partition moves again. */
        public boolean needsOperator() {
            return this == INCOMPATIBLE || this == UNSUPPORTED;
        }
    }

    /** A record whose id cannot be translated now; its batch must not be written. */
    public static final class Hold extends Exception {
        private final HoldKind kind;

        Hold(HoldKind kind, String message, Throwable cause) {
            super(message, cause, false, false);
            this.kind = kind;
        }

        public HoldKind kind() {
            return kind;
        }
    }

    private record Mapping(String topic, boolean isKey, int sourceId) {
    }

    private final SchemaRegistryClient registry;
    private final SubjectNameStrategy keyStrategy;
    private final SubjectNameStrategy valueStrategy;
    private final BoundedCache<Integer, ShippedSchema> shipped;
    private final BoundedCache<Mapping, Integer> mappings;
    private final AtomicLong registrations = new AtomicLong();
    private final AtomicLong registryFailures = new AtomicLong();
    private final AtomicLong incompatible = new AtomicLong();
    private final AtomicLong translated = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    // last translation of keys and of values: most records repeat it (task thread only)
    private final Mapping[] lastMapping = new Mapping[2];
    private final int[] lastTarget = new int[2];

    /**
     * @param cacheSize most shipped schemas and most id mappings kept (each)
     */
    public SchemaTranslator(SchemaRegistryClient registry, SubjectNameStrategy keyStrategy,
                            SubjectNameStrategy valueStrategy, int cacheSize) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.keyStrategy = Objects.requireNonNull(keyStrategy, "keyStrategy");
        this.valueStrategy = Objects.requireNonNull(valueStrategy, "valueStrategy");
        this.shipped = new BoundedCache<>(cacheSize);
        this.mappings = new BoundedCache<>(cacheSize);
    }

    /**
     * Takes the schema entries of a topic metadata frame's configs.
     *
     * @return how many entries it carried
     * @throws IllegalArgumentException naming an entry that does not decode
     */
    public int accept(Map<String, String> configs) {
        Map<Integer, ShippedSchema> schemas = ShippedSchema.decodeAll(configs);
        schemas.forEach(shipped::put);
        return schemas.size();
    }

    /**
     * Rewrites the schema id of a key or value of a record for {@code destinationTopic}, in place.
     *
     * @param mayRegister whether a schema may be registered for it now (its batch is next in its
     *     partition's order); when false and a registration is needed, {@link HoldKind#OUT_OF_ORDER}
     * @return whether the id was rewritten (false: not in the wire format, or an id that passes)
     * @throws Hold when the record must not be written yet
     */
    public boolean translate(String destinationTopic, byte[] data, boolean isKey, boolean mayRegister) throws Hold {
        int sourceId = WireFormat.schemaId(data);
        if (sourceId == WireFormat.NONE) {
            return false;
        }
        int slot = isKey ? 0 : 1;
        Mapping last = lastMapping[slot];
        if (last != null && last.sourceId() == sourceId && last.topic().equals(destinationTopic)) {
            WireFormat.rewriteId(data, lastTarget[slot]);
            translated.incrementAndGet();
            return true;
        }
        Mapping mapping = new Mapping(destinationTopic, isKey, sourceId);
        Integer target = mappings.get(mapping);
        if (target == null) {
            ShippedSchema schema = shipped.get(sourceId);
            if (schema == null) {
                throw hold(HoldKind.MISSING, MISSING_PREFIX + "source schema id " + sourceId + " (a "
                        + (isKey ? "key" : "value") + " of " + destinationTopic + ") has not arrived from the source "
                        + "site; is schema.translation.enabled on the source-site connector?", null);
            }
            if (!schema.isTranslated()) {
                return false;
            }
            target = register(destinationTopic, isKey, schema, mayRegister);
            mappings.put(mapping, target);
        }
        lastMapping[slot] = mapping;
        lastTarget[slot] = target;
        WireFormat.rewriteId(data, target);
        translated.incrementAndGet();
        return true;
    }

    private int register(String topic, boolean isKey, ShippedSchema shipped, boolean mayRegister) throws Hold {
        RegisteredSchema schema = shipped.schema();
        SubjectNameStrategy strategy = isKey ? keyStrategy : valueStrategy;
        String what = "source schema id " + shipped.sourceId() + " (a " + (isKey ? "key" : "value") + " of "
                + topic + ")";
        if (schema.references() > 0) {
            throw hold(HoldKind.UNSUPPORTED, what + " references other schemas, which translation does not "
                    + "support", null);
        }
        String subject;
        try {
            subject = strategy.subject(topic, isKey, schema);
        } catch (IllegalArgumentException e) {
            throw hold(HoldKind.UNSUPPORTED, what + " has no subject under " + strategy.configName() + ": "
                    + e.getMessage(), e);
        }
        if (!mayRegister) {
            throw hold(HoldKind.OUT_OF_ORDER, what + " must be registered under subject " + subject + " after "
                    + "the batches before it in its partition, which have not been written yet", null);
        }
        try {
            int id = registry.register(subject, schema);
            registrations.incrementAndGet();
            return id;
        } catch (SchemaRegistryException e) {
            registryFailures.incrementAndGet();
            switch (e.kind()) {
                case INCOMPATIBLE -> {
                    incompatible.incrementAndGet();
                    throw hold(HoldKind.INCOMPATIBLE, what + " is incompatible with subject " + subject + " in the "
                            + "destination registry, whose compatibility rule refuses it (" + e.getMessage() + "). "
                            + "The partition stops here until the subject accepts the schema (its compatibility "
                            + "level, or the schema evolved compatibly at the source)", e);
                }
                case UNAVAILABLE, UNAUTHORIZED -> throw hold(HoldKind.UNAVAILABLE, what + " cannot be registered "
                        + "under subject " + subject + " now: " + e.getMessage(), e);
                default -> throw hold(HoldKind.UNSUPPORTED, what + " was refused under subject " + subject + ": "
                        + e.getMessage(), e);
            }
        }
    }

    private Hold hold(HoldKind kind, String message, Throwable cause) {
        held.incrementAndGet();
        return new Hold(kind, message, cause);
    }

    /** Schemas registered (or found registered) in the destination registry. */
    public long registrations() {
        return registrations.get();
    }

    /** Registrations that failed, for any reason. */
    public long registryFailures() {
        return registryFailures.get();
    }

    /** Registrations the subject's compatibility refused. */
    public long incompatible() {
        return incompatible.get();
    }

    /** Keys and values whose id was rewritten. */
    public long translated() {
        return translated.get();
    }

    /** Translations that had to wait (their batch was refused, to come again). */
    public long holds() {
        return held.get();
    }
}
