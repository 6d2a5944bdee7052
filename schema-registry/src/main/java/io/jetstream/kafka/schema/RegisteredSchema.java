package io.jetstream.kafka.schema;

import java.util.Objects;

/**
 * A schema as a registry serves it: its type ({@code AVRO}, {@code JSON}, {@code PROTOBUF}; the
 * registry omits it for Avro) and its text, plus how many other schemas it references.
 *
 * @param type upper-case schema type
 * @param schema the schema text exactly as the registry returned it
 * @param references number of references to other subjects (0 for a self-contained schema)
 */
public record RegisteredSchema(String type, String schema, int references) {

    public static final String AVRO = "AVRO";

    public RegisteredSchema {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(schema, "schema");
        if (references < 0) {
            throw new IllegalArgumentException("references " + references + " < 0");
        }
    }

    /** A self-contained Avro schema. */
    public static RegisteredSchema avro(String schema) {
        return new RegisteredSchema(AVRO, schema, 0);
    }

    public boolean isAvro() {
        return AVRO.equals(type);
    }
}
