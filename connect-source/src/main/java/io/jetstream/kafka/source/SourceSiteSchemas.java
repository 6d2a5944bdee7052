package io.jetstream.kafka.source;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.schema.RegistryClientSettings;
import io.jetstream.kafka.schema.RestSchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryException;
import io.jetstream.kafka.schema.SourceSchemas;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * The source-site task's adapter to {@link SourceSchemas} (schema translation): looks up the ids
 * of the records Connect hands over, turns a registry that cannot answer into Connect's retry
 * (the records come again after a pause) and a registry that refuses into a failed task, and
 * gives the metadata publisher each topic's schema entries.
 */
final class SourceSiteSchemas implements TopicMetadataPublisher.Schemas, AutoCloseable {

    /** Shortest pause before Connect hands records over again after the registry did not answer. */
    private static final long MIN_RETRY_MILLIS = 1_000;

    private final SchemaRegistryClient registry;
    private final SourceSchemas schemas;

    SourceSiteSchemas(SchemaRegistryClient registry) {
        this.registry = registry;
        this.schemas = new SourceSchemas(registry);
    }

    static SourceSiteSchemas start(RegistryClientSettings settings, SourceSiteMetrics metrics) {
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(settings);
        SourceSiteSchemas out = new SourceSiteSchemas(client);
        metrics.gauge("schema-lookups-total", "Schema ids looked up in the source site's registry (once each "
                + "while cached).", out.schemas::lookups);
        metrics.gauge("schema-lookup-failures-total", "Lookups the source registry did not answer or refused: "
                + "the records were handed over again later, nothing was sent without its schema.",
                out.schemas::lookupFailures);
        metrics.gauge("schema-passed-ids-total", "Schema ids whose records pass unchanged: JSON Schema or "
                + "Protobuf schemas, and ids unknown to the source registry.", out.schemas::passedIds);
        metrics.gauge("schema-registry-calls-total", "Calls made to the source registry.", client::calls);
        return out;
    }

    /**
     * Notes the schema ids of the records; returns the topics that gained one.
     *
     * @throws RetriableException when the registry cannot be reached (after {@code context.timeout})
     * @throws ConnectException when it refuses in a way a retry cannot change
     */
    Set<String> observe(List<TopicPartition> partitions, List<ReplicatedRecord> records, Duration retryBackoff,
                        LongConsumer timeout) {
        Set<String> changed = new LinkedHashSet<>();
        for (int i = 0; i < records.size(); i++) {
            ReplicatedRecord record = records.get(i);
            String topic = partitions.get(i).topic();
            try {
                if (schemas.observe(topic, record.key(), record.value())) {
                    changed.add(topic);
                }
            } catch (SchemaRegistryException e) {
                String what = "the schema of " + partitions.get(i) + "@" + record.offset() + " from the source "
                        + "registry (" + registry + "): " + e.getMessage();
                if (e.kind().retriable()) {
                    long pause = Math.max(MIN_RETRY_MILLIS, retryBackoff.toMillis());
                    timeout.accept(pause);
                    throw new RetriableException("Cannot look up " + what + ". The records are handed over again in "
                            + pause + " ms; nothing is sent without its schema", e);
                }
                throw new ConnectException("Cannot replicate " + what, e);
            }
        }
        return changed;
    }

    @Override
    public Map<String, String> entries(String topic) {
        return schemas.entries(topic);
    }

    @Override
    public long generation(String topic) {
        return schemas.generation(topic);
    }

    @Override
    public void close() {
        registry.close();
    }
}
