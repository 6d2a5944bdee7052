package io.jetstream.kafka.schema;

/**
 * The calls of the Confluent Schema Registry REST API replication needs. Implementations are
 * thread-safe and may block for their timeouts.
 */
public interface SchemaRegistryClient extends AutoCloseable {

    /** {@code GET /schemas/ids/{id}}: the schema with this id. */
    RegisteredSchema schemaById(int id) throws SchemaRegistryException;

    /**
     * {@code POST /subjects/{subject}/versions}: registers the schema under the subject (the
     * registry checks the subject's compatibility) and returns its id; a schema the subject already
     * has returns its existing id.
     */
    int register(String subject, RegisteredSchema schema) throws SchemaRegistryException;

    @Override
    default void close() {
    }
}
