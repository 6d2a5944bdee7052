package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Upstream;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every answer the receiver's stages send back to a relay leaves through here, signed when integrity
 * is on ({@link FrameIntegrity}), with the refusals that every stage makes alike: a frame that failed
 * its integrity check, and a skip marker acknowledged without being sequenced. Counted and logged
 * (throttled) here, once. The answer to a section of a BATCHES frame is neither signed nor sent: it
 * goes into its frame's one answer ({@link FrameAnswer}), which leaves through here once every
 * section is answered. Thread-safe.
 */
final class Answers {

    private static final Logger log = LoggerFactory.getLogger(ReplicationReceiver.class);

    private final FrameIntegrity integrity;
    private final SinkSiteMetrics metrics;
    private final WarningThrottle integrityWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle skipWarnings = WarningThrottle.every(Duration.ofSeconds(10));

    Answers(FrameIntegrity integrity, SinkSiteMetrics metrics) {
        this.integrity = integrity;
        this.metrics = metrics;
    }

    /**
     * Every acknowledgement leaves through here: signed when integrity is on. A section's goes into its
     * frame's answer unsigned: only that answer leaves, and its one MAC is all the sender checks.
     */
    void send(Upstream to, AckFrame ack) {
        if (to instanceof FrameAnswer.Section section) {
            section.sendAck(ack);
        } else {
            to.sendAck(integrity.sign(ack));
        }
    }

    /** Refuses a batch not yet queued, and releases it. */
    void refuse(Upstream from, BatchFrame batch, AckReason reason, String message) {
        try {
            send(from, AckFrame.nack(batch.header(), reason, message));
        } finally {
            batch.release();
        }
    }

    /** Refuses a whole BATCHES frame not yet queued (none of its sections), and releases it. */
    void refuse(Upstream from, BatchesFrame frame, AckReason reason, String message) {
        try {
            send(from, AckFrame.nack(frame, reason, message));
        } finally {
            frame.release();
        }
    }

    /** Refuses a frame that failed its integrity check: counted, logged (throttled), answered, never used. */
    void refuseForIntegrity(Upstream from, AckFrame nack, String what, String problem) {
        metrics.integrityFailure();
        long notLogged = integrityWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Refused {} received from relay {}: {}. Nothing of it is used; answered NOT_AUTHORIZED "
                    + "(counted in integrity-failures-total{})", what, from.name(), problem,
                    notLogged == 0 ? "" : "; " + notLogged + " more refusals since the last such warning");
        }
        send(from, nack);
    }

    /**
     * A skip marker of a partition this destination writes nothing of (a topic it does not allow, a
     * partition beyond its limit, an incarnation of the topic it has left): acknowledged at once. Its
     * successors are refused, or belong to another incarnation, on their own; nothing of the
     * partition is written, so there is no progress to move past the skipped offsets.
     */
    void acceptUnsequenced(Upstream from, BatchHeader header, RecordBatch marker, String why) {
        metrics.skippedAtSource(marker.skipped().records());
        warnSkipped(marker, why + "; nothing of that partition is written here");
        send(from, AckFrame.ok(header));
    }

    /** WARN (at most one per 10 s) that the source skipped the marker's offsets. */
    void warnSkipped(RecordBatch marker, String detail) {
        long notLogged = skipWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Origin offsets {}..{} of {}-{} ({} records) were skipped at the source: its errors.tolerance=all "
                    + "skipped the batch after this destination refused it for good, and reported its records to "
                    + "its dead letter queue, if it has one. They are not written here; {} (counted in "
                    + "skipped-at-source-records-total{})", marker.firstOffset(), marker.lastOffset(), marker.topic(),
                    marker.partition(), marker.skipped().records(), detail,
                    notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
    }
}
