package io.jetstream.kafka.sink.schemas;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.schema.RestSchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryConfigs;
import io.jetstream.kafka.schema.SchemaTranslator;
import io.jetstream.kafka.schema.ShippedSchema;
import io.jetstream.kafka.schema.SubjectNameStrategy;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destination-site task's adapter to {@link SchemaTranslator} (schema translation): rewrites
 * the schema ids of a batch's keys and values for the destination topic, or says why the batch must
 * wait. Each partition held by a schema problem is tracked until one of its batches passes: the
 * number held is a metric, and each hold is logged (throttled), an error when an operator must act
 * (a schema the destination registry refuses as incompatible).
 */
public final class SinkSiteSchemas implements ReplicationReceiver.Translator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SinkSiteSchemas.class);

    private final SchemaRegistryClient registry;
    private final SchemaTranslator translator;
    private final TopicNamingPolicy naming;
    /** A partition held by translation: why (last), and since when (first hold, nanos). */
    private record Held(SchemaTranslator.HoldKind kind, String why, long sinceNanos) {
    }

    private final Map<TopicPartition, Held> held = new ConcurrentHashMap<>();
    private final Duration holdTimeout;
    private final LongSupplier nanoTime;
    private final WarningThrottle warnings = WarningThrottle.every(Duration.ofSeconds(10));

    /**
     * @param holdTimeout how long a partition may stay held before {@link #overdue} fails the task;
     *     null: never
     */
    public SinkSiteSchemas(SchemaRegistryClient registry, SchemaTranslator translator, TopicNamingPolicy naming,
                    SinkSiteMetrics metrics, Duration holdTimeout, LongSupplier nanoTime) {
        this.holdTimeout = holdTimeout;
        this.nanoTime = nanoTime;
        this.registry = registry;
        this.translator = translator;
        this.naming = naming;
        SchemaTranslator t = translator;
        metrics.gauge("schema-translated-total", "Record keys and values whose schema id was rewritten to the "
                + "destination registry's.", t::translated);
        metrics.gauge("schema-registrations-total", "Schemas registered (or found registered) in the destination "
                + "registry.", t::registrations);
        metrics.gauge("schema-registry-failures-total", "Registrations that failed: registry unreachable, "
                + "refusing credentials, or refusing the schema.", t::registryFailures);
        metrics.gauge("schema-incompatible-total", "Registrations the destination subject's compatibility rule "
                + "refused: the partition stops there.", t::incompatible);
        metrics.gauge("schema-held-batches-total", "Batches refused (retriably) because an id could not be "
                + "translated yet; they come again.", t::holds);
        metrics.gauge("schema-held-partitions", "Origin partitions whose last batch was held by schema "
                + "translation (an incompatible schema, the registry down, a schema not arrived yet).", held::size);
        if (registry instanceof RestSchemaRegistryClient client) {
            metrics.gauge("schema-registry-calls-total", "Calls made to the destination registry.", client::calls);
        }
    }

    public static SinkSiteSchemas start(SinkSiteConfig config, TopicNamingPolicy naming, SinkSiteMetrics metrics, Clock clock) {
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(config.schemaRegistry());
        SubjectNameStrategy keys = config.keySubjectStrategy();
        SubjectNameStrategy values = config.valueSubjectStrategy();
        log.info("Schema translation on: ids rewritten to {}, key subjects by {}, value subjects by {}", client,
                keys.configName(), values.configName());
        return new SinkSiteSchemas(client, new SchemaTranslator(client, keys, values, config.schemaCacheSize()), naming,
                metrics, config.schemaHoldTimeout().orElse(null), clock::nanoTime);
    }

    /** When translation is off: warns (once) if the source ships schemas, since its ids then reach consumers here. */
    public static ReplicationReceiver.Translator disabled() {
        AtomicBoolean warned = new AtomicBoolean();
        return new ReplicationReceiver.Translator() {
            @Override
            public String translate(RecordBatch batch, boolean inOrder) {
                return null;
            }

            @Override
            public void accept(TopicMetadataFrame metadata) {
                boolean shipsSchemas = metadata.configs().keySet().stream().anyMatch(ShippedSchema::isSchemaKey);
                if (shipsSchemas && warned.compareAndSet(false, true)) {
                    log.warn("The source-site connector ships schemas (schema.translation.enabled) but this "
                            + "connector does not translate them: records keep the source registry's ids. Set "
                            + "schema.translation.enabled=true and schema.registry.url here.");
                }
            }
        };
    }

    @Override
    public String translate(RecordBatch batch, boolean inOrder) {
        String topic = naming.destinationTopic(batch.topic());
        try {
            for (ReplicatedRecord record : batch.records()) {
                translator.translate(topic, record.key(), true, inOrder);
                translator.translate(topic, record.value(), false, inOrder);
            }
        } catch (SchemaTranslator.Hold hold) {
            onHold(new TopicPartition(batch.topic(), batch.partition()), batch, hold);
            return hold.getMessage();
        }
        // only a batch next in its partition moves it on: one that arrived early waits behind the held one
        if (inOrder && !held.isEmpty()) {
            TopicPartition tp = new TopicPartition(batch.topic(), batch.partition());
            if (held.remove(tp) != null) {
                log.info("Schema translation of {} goes on from offset {}", tp, batch.firstOffset());
            }
        }
        return null;
    }

    private void onHold(TopicPartition tp, RecordBatch batch, SchemaTranslator.Hold hold) {
        Held previous = held.get(tp);
        held.put(tp, new Held(hold.kind(), hold.getMessage(), previous == null ? nanoTime.getAsLong()
                : previous.sinceNanos()));
        SchemaTranslator.HoldKind before = previous == null ? null : previous.kind();
        String what = "Batch of " + tp + " offsets " + batch.firstOffset() + ".." + batch.lastOffset()
                + " is held (refused retriably, sent again by the source): " + hold.getMessage();
        if (hold.kind().needsOperator()) {
            if (before != hold.kind() || warnings.admit() != WarningThrottle.QUIET) {
                log.error("{}. Nothing of {} is written past this point until then", what, tp);
            }
        } else if (hold.kind() == SchemaTranslator.HoldKind.UNAVAILABLE) {
            long notLogged = warnings.admit();
            if (notLogged != WarningThrottle.QUIET) {
                log.warn("{}{}", what, notLogged == 0 ? "" : " (" + notLogged + " more holds since the last warning)");
            }
        } else {
            log.debug("{}", what);
        }
    }

    /**
     * Why the task must fail: a partition held by translation for longer than the hold timeout (its
     * last reason), or null. The source keeps the batches; a restarted task tries them again.
     */
    public String overdue() {
        if (holdTimeout == null || held.isEmpty()) {
            return null;
        }
        long now = nanoTime.getAsLong();
        for (Map.Entry<TopicPartition, Held> entry : held.entrySet()) {
            long heldNanos = now - entry.getValue().sinceNanos();
            if (heldNanos > holdTimeout.toNanos()) {
                return "Schema translation has held " + entry.getKey() + " for " + heldNanos / 1_000_000_000L
                        + " s, longer than " + SchemaRegistryConfigs.HOLD_TIMEOUT_MS + "=" + holdTimeout.toMillis()
                        + ": " + entry.getValue().why() + ". Nothing of it was written; the source keeps the records. "
                        + "Restart the task once the cause is fixed.";
            }
        }
        return null;
    }

    @Override
    public void accept(TopicMetadataFrame metadata) {
        int schemas = translator.accept(metadata.configs());
        if (schemas > 0) {
            log.debug("Received {} schema(s) with the metadata of {}", schemas, metadata.topic());
        }
    }

    @Override
    public void close() {
        registry.close();
    }
}
