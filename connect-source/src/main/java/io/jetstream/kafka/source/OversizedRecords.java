package io.jetstream.kafka.source;

import io.jetstream.kafka.source.sender.RelayChoice;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records too large to travel: a record whose key, value and headers exceed what one batch frame to
 * the relays carries ({@link RelayChoice#maxRecordBytes()}) can never be sent, and sending it
 * would fail the task again after every restart. Such a record follows Connect's error conventions:
 * <ul>
 *   <li>with an errant record reporter (Connect gives one when the connector has a dead letter queue
 *       or error logging) it is reported; under {@code errors.tolerance=all} it is then skipped,
 *       under {@code none} the reporter fails the task;</li>
 *   <li>without one, {@code errors.tolerance=all} skips it with a warning naming it, and
 *       {@code none} (the default) fails the task with a message naming topic, partition, offset,
 *       sizes and the settings that let it through.</li>
 * </ul>
 * A skipped record's offset is absent for the destination, as after compaction; every skip is
 * counted ({@link #skipped()}). Compression is not counted on: the limit holds for any payload.
 */
final class OversizedRecords {

    private static final Logger log = LoggerFactory.getLogger(OversizedRecords.class);

    private final ErrantRecordReporter reporter;
    private final boolean tolerateAll;
    private final LongSupplier maxRecordBytes;
    private long skipped;

    /**
     * @param reporter       Connect's reporter for this task, or null when the worker gives none
     * @param tolerateAll    whether the connector sets {@code errors.tolerance=all}
     * @param maxRecordBytes the current largest record, see {@link RelayChoice#maxRecordBytes()}
     */
    OversizedRecords(ErrantRecordReporter reporter, boolean tolerateAll, LongSupplier maxRecordBytes) {
        this.reporter = reporter;
        this.tolerateAll = tolerateAll;
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * Whether {@code record}, carrying {@code dataBytes} of key, value and headers, can be
     * replicated. When it cannot, it has been reported (the caller skips it), or this throws.
     *
     * @throws ConnectException naming the record, when there is no reporter to hand it to (or the
     *                          reporter's own failure, with Connect's default {@code errors.tolerance=none})
     */
    boolean fits(SinkRecord record, long dataBytes) {
        long limit = maxRecordBytes.getAsLong();
        if (dataBytes <= limit) {
            return true;
        }
        String message = "Record " + record.originalTopic() + "-" + record.originalKafkaPartition() + "@"
                + record.originalKafkaOffset() + " carries " + dataBytes + " bytes of key, value and headers, more "
                + "than the " + limit + " one batch frame to the relays can hold (their frame.max.bytes less "
                + RelayChoice.RECORD_ENCODING_ALLOWANCE + " bytes for framing): it cannot be replicated. "
                + "Raise frame.max.bytes on every relay of the path, or set errors.tolerance=all (and "
                + "errors.deadletterqueue.topic.name) on this connector to skip such records";
        if (reporter != null) {
            reporter.report(record, new DataException(message)); // throws under errors.tolerance=none
        } else if (tolerateAll) {
            log.warn("Skipped (errors.tolerance=all, no dead letter queue): {}", message);
        } else {
            throw new ConnectException(message);
        }
        skipped++;
        return false;
    }

    /** Records skipped so far. */
    long skipped() {
        return skipped;
    }
}
