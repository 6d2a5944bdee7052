package io.jetstream.kafka.source;

import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.source.sender.RefusedBatch;
import io.jetstream.kafka.source.sender.ReplicationSender;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches the destination refused for good, under {@code errors.tolerance=all}: their records follow
 * Connect's error conventions as {@link OversizedRecords} does for a record too large to travel. Each
 * record is reported to Connect's errant record reporter (the dead letter queue, when the connector
 * has one; Connect waits for those writes before it commits the partition's offsets), then the sender
 * puts a skip marker in the batch's place ({@link ReplicationSender#skip}), so the records after it
 * and every other partition keep flowing. Without a reporter the records are only logged as skipped.
 *
 * <p>The records are read back from the frame the sender kept for re-sends, not kept a second time:
 * the reported records carry the origin's topic, partition, offset, timestamp, key, value and headers
 * as bytes, which the connector's {@code ByteArrayConverter}s write to the queue unchanged.
 *
 * <p>Task thread only: {@link #handle} runs at the start of every {@code put}.
 */
final class RefusedBatches {

    private static final Logger log = LoggerFactory.getLogger(RefusedBatches.class);

    private final ErrantRecordReporter reporter;
    private final String deadLetterTopic;
    private final WarningThrottle warnings = WarningThrottle.every(Duration.ofSeconds(10));

    /**
     * @param reporter        Connect's reporter for this task, or null when the worker gives none
     * @param deadLetterTopic the connector's {@code errors.deadletterqueue.topic.name}, or null/empty
     */
    RefusedBatches(ErrantRecordReporter reporter, String deadLetterTopic) {
        this.reporter = reporter;
        this.deadLetterTopic = deadLetterTopic == null || deadLetterTopic.isBlank() ? null : deadLetterTopic;
    }

    /** Reports the records of every batch the sender found refused since the last call, then skips the batch. */
    void handle(ReplicationSender sender) {
        RefusedBatch refused;
        while ((refused = sender.nextRefused()) != null) {
            report(refused);
            sender.skip(refused);
        }
    }

    private void report(RefusedBatch refused) {
        List<ReplicatedRecord> records = refused.batch().records();
        String range = refused.partition() + " source offsets " + refused.batch().firstOffset() + ".."
                + refused.batch().lastOffset() + " (" + records.size() + " records)";
        String reason = refused.reason() + " " + refused.message();
        long notLogged = warnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("The destination refused for good the batch of {}: {}. Skipped, as errors.tolerance=all asks: {}; "
                    + "the records after it keep flowing (counted in skipped-refused-batches-total and "
                    + "skipped-refused-records-total{})", range, reason, deadLetterTopic != null
                            ? "its records go to the dead letter queue " + deadLetterTopic
                            : "no dead letter queue is set (errors.deadletterqueue.topic.name), so its records are "
                                    + "not kept", notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
        if (reporter == null) {
            return;
        }
        DataException error = new DataException("The destination refused for good the batch of " + range + ": "
                + reason);
        for (ReplicatedRecord record : records) {
            reporter.report(toSinkRecord(refused, record), error);
        }
    }

    /** The record as Connect handed it over: bytes, with the origin's coordinates. */
    static SinkRecord toSinkRecord(RefusedBatch refused, ReplicatedRecord record) {
        ConnectHeaders headers = new ConnectHeaders();
        for (RecordHeader header : record.headers()) {
            headers.addBytes(header.key(), header.value());
        }
        boolean timed = record.timestampType() != TimestampType.NO_TIMESTAMP_TYPE;
        return new SinkRecord(refused.batch().topic(), refused.batch().partition(), Schema.OPTIONAL_BYTES_SCHEMA,
                record.key(), Schema.OPTIONAL_BYTES_SCHEMA, record.value(), record.offset(),
                timed ? record.timestamp() : -1L, record.timestampType(), headers);
    }
}
