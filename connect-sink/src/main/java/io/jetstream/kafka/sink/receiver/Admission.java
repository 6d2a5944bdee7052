package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.schema.ShippedSchema;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Delivery;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Settings;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Translator;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Upstream;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import io.jetstream.kafka.sink.topics.MetadataGenerations;
import io.jetstream.kafka.sink.topics.TopicProvisioner;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiver's middle stage, on the task thread: decides whether a queued batch (or a section of a
 * BATCHES frame) may be written, in this order, and answers it when not. Its MAC first, before
 * anything in it is believed (a section's, its frame's, was checked on intake); then its
 * topic ({@code topics.allow}, {@code topics.exclude}, not a replica from here); its decoding; its
 * destination topic and partition ({@link TopicProvisioner}); a batch without a topic id where the
 * incarnation matters; and the translation of its schema ids. What passes goes to
 * {@link Sequencing}. Topic metadata is admitted here too, on the metadata applier's thread.
 */
final class Admission implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationReceiver.class);

    private final Settings settings;
    private final TopicProvisioner topics;
    private final SinkSiteMetrics metrics;
    private final FrameIntegrity integrity;
    private final Translator translator;
    private final Answers answers;
    private final Sequencing sequencing;
    private final BatchDecoder decoder = new BatchDecoder();
    private final WarningThrottle creationWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private volatile boolean closed;

    Admission(Settings settings, TopicProvisioner topics, SinkSiteMetrics metrics, FrameIntegrity integrity,
              Translator translator, Answers answers, Sequencing sequencing) {
        this.settings = settings;
        this.topics = topics;
        this.metrics = metrics;
        this.integrity = integrity;
        this.translator = translator;
        this.answers = answers;
        this.sequencing = sequencing;
    }

    /** Admits a queued batch to its sequencer, or answers it; releases the frame either way. */
    void admit(Intake.Inbound in, List<Delivery> out) {
        BatchFrame frame = in.batch();
        try {
            BatchHeader header = frame.header();
            // Before anything in the batch is believed: its topic, offsets and records are the source's
            // only if its MAC says so (a BATCHES frame's section: its frame's MAC, checked on intake).
            String integrityProblem = in.integrityChecked() ? null : integrity.problem(frame);
            if (integrityProblem != null) {
                answers.refuseForIntegrity(in.from(), AckFrame.nack(header, AckReason.NOT_AUTHORIZED, "integrity: "
                        + integrityProblem), "batch " + header.batchId() + " of " + header.topic() + "-"
                        + header.partition() + " offsets " + header.firstOffset() + ".." + header.lastOffset()
                        + " (prev " + header.prevOffset() + ", from " + header.routing().originNodeId() + ")",
                        integrityProblem);
                return;
            }
            String topic = header.topic();
            metrics.heard(new TopicPartition(topic, header.partition()), header.createdAtMillis());
            if (!isAllowed(topic)) {
                RecordBatch marker = skipMarkerOrNull(frame);
                if (marker != null) {
                    answers.acceptUnsequenced(in.from(), header, marker, "topic " + topic + " is not allowed here");
                    return;
                }
                metrics.refused();
                answers.send(in.from(), AckFrame.nack(header, AckReason.NOT_AUTHORIZED, "topic " + topic
                        + " is not allowed by topics.allow and topics.exclude, or came from " + settings.targetAlias()));
                return;
            }
            RecordBatch batch;
            try {
                batch = decoder.decode(frame.encodedBatch());
            } catch (ProtocolException e) {
                metrics.malformed();
                answers.send(in.from(), AckFrame.nack(header, AckReason.MALFORMED_BATCH, e.getMessage()));
                return;
            }
            if (!destinationReady(in.from(), header, batch)) {
                return;
            }
            // Before translation, which may register schemas in source order for a batch that applies now.
            if (!batch.hasTopicId() && sequencing.refusedWithoutTopicId(in.from(), header, batch)) {
                return;
            }
            // Never written with an id that could not be translated: refused, the source sends it again.
            String hold = translator.translate(batch, sequencing.appliesNow(batch));
            if (hold != null) {
                answers.send(in.from(), AckFrame.nack(header, AckReason.WRITE_FAILED, hold));
                return;
            }
            sequencing.offer(in.from(), header, batch, Math.max(in.bytes(), decodedBytes(batch)), out);
        } finally {
            frame.release();
        }
    }

    /** Whether the batch's destination topic and partition exist (made or grown as needed); else answered. */
    private boolean destinationReady(Upstream from, BatchHeader header, RecordBatch batch) {
        String topic = header.topic();
        try {
            topics.ensure(topic, header.partition());
            return true;
        } catch (DestinationTopics.PartitionLimitException e) {
            if (batch.isSkipMarker()) {
                answers.acceptUnsequenced(from, header, batch, e.getMessage());
                return false;
            }
            metrics.refused();
            log.error("Batch of {}-{} offsets {}..{} refused: {}", topic, header.partition(), header.firstOffset(),
                    header.lastOffset(), e.getMessage());
            answers.send(from, AckFrame.nack(header, AckReason.NOT_AUTHORIZED, e.getMessage()));
        } catch (DestinationTopics.MetadataPendingException e) {
            log.debug("Batch of {}-{} refused for now: {}", topic, header.partition(), e.getMessage());
            answers.send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, e.getMessage()));
        } catch (Exception e) {
            log.warn("Cannot prepare the destination of {}-{}: {}", topic, header.partition(), e.toString());
            answers.send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, "destination topic not ready: " + e));
        }
        return false;
    }

    /**
     * The batch as a skip marker, when it is one (checked only for a frame that declares no records
     * and offsets past its predecessor, as only markers do); else null.
     */
    private RecordBatch skipMarkerOrNull(BatchFrame frame) {
        BatchHeader header = frame.header();
        if (header.recordCount() != 0 || header.lastOffset() == header.prevOffset()) {
            return null;
        }
        try {
            RecordBatch batch = decoder.decode(frame.encodedBatch());
            return batch.isSkipMarker() ? batch : null;
        } catch (ProtocolException e) {
            return null;
        }
    }

    /**
     * What a decoded batch holds on the heap, roughly: its records' data plus 64 bytes each (the
     * record, its arrays and list entries). A held batch is charged this, not its compressed size: a
     * well-compressed batch is many times larger once decoded.
     */
    static long decodedBytes(RecordBatch batch) {
        long bytes = 128;
        for (ReplicatedRecord record : batch.records()) {
            bytes += record.dataBytes() + 64L;
        }
        return bytes;
    }

    private boolean isAllowed(String originTopic) {
        return settings.topicsAllow().matcher(originTopic).matches()
                && !settings.naming().isReplicaFrom(originTopic, settings.targetAlias());
    }

    /** Admits topic metadata (its MAC checked already) on the metadata applier's thread, and answers it. */
    void applyMetadata(Upstream from, TopicMetadataFrame metadata) {
        if (closed) {
            return;
        }
        try {
            if (isAllowed(metadata.topic())) {
                translator.accept(metadata);
                topics.apply(withoutSchemas(metadata));
            }
            answers.send(from, AckFrame.ok(metadata));
        } catch (DestinationTopics.PartitionLimitException e) {
            metrics.refused();
            log.error("Metadata of topic {} refused: {}", metadata.topic(), e.getMessage());
            answers.send(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, e.getMessage()));
        } catch (DestinationTopics.StaleMetadataException e) {
            // Superseded: the destination holds a newer description, which is what the source wants.
            // Too old (a replay, or clocks apart): refused retriably, the source describes the topic afresh.
            metrics.staleMetadata();
            log.debug("Topic metadata from {}: {}", from.name(), e.getMessage());
            boolean superseded = e.staleness() == MetadataGenerations.Staleness.SUPERSEDED;
            answers.send(from, superseded ? AckFrame.ok(metadata)
                    : AckFrame.nack(metadata, AckReason.TIMEOUT, e.getMessage()));
        } catch (DestinationTopics.CreationLimitException e) {
            metrics.topicCreationRefused();
            long notLogged = creationWarnings.admit();
            if (notLogged != WarningThrottle.QUIET) {
                log.error("Metadata of topic {} refused: {} ({} more refused since the last such message)",
                        metadata.topic(), e.getMessage(), notLogged);
            }
            answers.send(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, e.getMessage()));
        } catch (Exception e) {
            log.warn("Cannot apply metadata of topic {}: {}", metadata.topic(), e.toString());
            answers.send(from, AckFrame.nack(metadata, AckReason.WRITE_FAILED, e.toString()));
        }
    }

    /** The metadata without the schemas shipped in its configs: what applies to the topic. */
    private static TopicMetadataFrame withoutSchemas(TopicMetadataFrame metadata) {
        if (metadata.configs().keySet().stream().noneMatch(ShippedSchema::isSchemaKey)) {
            return metadata;
        }
        return metadata.withConfigs(ShippedSchema.topicConfigs(metadata.configs()));
    }

    @Override
    public void close() {
        closed = true;
        decoder.close(); // a poll still decoding fails with IllegalStateException, never a corrupt-batch answer
    }
}
