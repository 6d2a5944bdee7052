package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.schema.SchemaTranslator;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sender does with an answer from the relays: a heartbeat's answer frees the partition's
 * next heartbeat; a receipt times the path for the batching policy; an ACK frees the batch's place
 * in the window (its offsets become committable); a NACK re-sending can help with sends the batch
 * again later ({@link SendWindow#retryLater}); a final refusal goes to {@link SkipMarkers}; an
 * answer to topic metadata goes back to whoever sent it ({@link MetadataInFlight}).
 *
 * <p>An answer to a BATCHES frame is the answer of each batch whose last send was that frame
 * ({@link SendWindow#members}): OK acknowledges each; a receipt times each; a retriable NACK re-sends
 * each; {@code MIXED_SHARES} sets the share count the frames group by and re-sends each (regrouped);
 * a refusal for good, which names no section, re-sends each in a BATCH frame of its own, whose own
 * answer then says which one is refused ({@link SkipMarkers}).
 *
 * <p>Integrity ({@link SenderIntegrity}): an answer that would commit a batch or stop the task counts
 * only with the destination's valid MAC; any other such answer is taken for a retriable NACK,
 * counted ({@code unverified-acks-total}) and logged, throttled.
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class AnswerPath {

    private static final Logger log = LoggerFactory.getLogger(AnswerPath.class);

    private final SenderSettings settings;
    private final SendWindow window;
    private final SkipMarkers skipMarkers;
    private final MetadataInFlight metadata;
    private final HeartbeatSchedule heartbeats;
    private final BatchPolicy policy;
    private final SenderEvents events;
    private final WarningThrottle unverifiedWarnings = WarningThrottle.every(Duration.ofSeconds(10));

    AnswerPath(SenderSettings settings, SendWindow window, SkipMarkers skipMarkers, MetadataInFlight metadata,
               HeartbeatSchedule heartbeats, BatchPolicy policy, SenderEvents events) {
        this.settings = settings;
        this.window = window;
        this.skipMarkers = skipMarkers;
        this.metadata = metadata;
        this.heartbeats = heartbeats;
        this.policy = policy;
        this.events = events;
    }

    /** Handles an answer; returns the answer to topic metadata to tell outside the lock, else null. */
    MetadataInFlight.Answer onAck(Relay from, AckFrame ack, long now) {
        if (!ack.originNodeId().equals(settings.nodeId())) {
            return null;
        }
        if (!ack.isReceipt() && heartbeats.answered(ack.batchId())) {
            return null; // a heartbeat's answer changes nothing else
        }
        FramesInFlight.SentFrame frame = window.frame(ack.batchId());
        if (ack.isReceipt()) {
            if (frame != null) {
                onFrameReceipt(frame, now);
            } else {
                onBatchReceipt(ack, now);
            }
            return null;
        }
        if (frame != null) {
            onFrameAck(from, frame, ack, now);
            return null;
        }
        MetadataInFlight.Sent answered = metadata.answering(ack);
        if (answered == null) {
            onBatchAck(from, ack, now);
            return null;
        }
        boolean applied;
        String distrust = settings.integrity().distrust(ack);
        if (distrust != null) {
            // Not applied as far as this sender knows (published again); the real answer still counts.
            unverified(from, ack, "topic metadata of " + answered.topic(), distrust, "it is published again");
            applied = false;
        } else {
            metadata.answered(ack);
            applied = ack.isOk();
        }
        if (!applied) {
            log.debug("Metadata of topic {} not applied yet: {} {}", answered.topic(), ack.reason(), ack.message());
        }
        return new MetadataInFlight.Answer(answered, applied);
    }

    /** The batch reached the egress relay; its answer is still to come. */
    private void onBatchReceipt(AckFrame receipt, long now) {
        InFlightWindow.Entry<PendingBatch> entry = window.get(receipt.batchId());
        if (entry == null || !entry.payload().onWire) {
            return; // answered meanwhile, or a receipt of an earlier attempt
        }
        policy.onBatchReceived(entry.records(), entry.payload().wireBytes, entry.sentAtNanos(), now);
    }

    /** The frame reached the egress relay: each of its batches still on the wire was received then. */
    private void onFrameReceipt(FramesInFlight.SentFrame frame, long now) {
        for (InFlightWindow.Entry<PendingBatch> entry : window.members(frame)) {
            if (entry.payload().onWire) {
                policy.onBatchReceived(entry.records(), entry.payload().wireBytes, entry.sentAtNanos(), now);
            }
        }
    }

    /** The answer to a BATCHES frame, for each batch whose last send it was (see the class comment). */
    private void onFrameAck(Relay from, FramesInFlight.SentFrame frame, AckFrame ack, long now) {
        List<InFlightWindow.Entry<PendingBatch>> members = window.members(frame);
        String distrust = settings.integrity().distrust(ack, frame);
        if (distrust != null) {
            unverified(from, ack, "frame " + frame.id() + " of " + members.size() + " batches (first topic "
                    + frame.firstTopic() + ")", distrust, "its batches are sent again");
            members.forEach(entry -> window.retryLater(entry, false, now));
            return;
        }
        if (ack.isOk()) {
            members.forEach(entry -> acknowledged(entry, now));
            return;
        }
        events.nack(ack.reason().name());
        if (ack.reason() == AckReason.MIXED_SHARES) {
            regroup(ack, frame);
            members.forEach(entry -> window.retryLater(entry, true, now));
            return;
        }
        if (!ack.reason().retriable()) {
            // One section at least is refused, the answer does not say which: each goes alone, soon,
            // and its own answer decides (a refused one then stops the task or is skipped, as always).
            for (InFlightWindow.Entry<PendingBatch> entry : members) {
                entry.payload().alone = true;
                window.retryLater(entry, true, now);
            }
            return;
        }
        boolean routeProblem = ack.reason() == AckReason.NEXT_HOP_UNREACHABLE || ack.reason() == AckReason.TIMEOUT;
        members.forEach(entry -> window.retryLater(entry, routeProblem, now));
        if (schemasMissing(ack)) {
            Set<String> topics = new LinkedHashSet<>(); // the answer names only the first; any may lack them
            members.forEach(entry -> topics.add(entry.partition().topic()));
            topics.forEach(metadata::schemasMissing);
        }
    }

    /**
     * {@code MIXED_SHARES}: the egress relay's subscribers split the stream into as many shares as the
     * answer's last offset says; frames group by them from now on. A count outside
     * 1..{@link Shares#MAX_SHARE_COUNT} (from no conforming relay) leaves the grouping as it is.
     */
    private void regroup(AckFrame ack, FramesInFlight.SentFrame frame) {
        long count = ack.lastOffset();
        if (count < 1 || count > Shares.MAX_SHARE_COUNT) {
            log.warn("Ignored the share count {} of a MIXED_SHARES answer to frame {} from the relays: outside 1..{}; "
                    + "frames still group by {} shares", count, frame.id(), Shares.MAX_SHARE_COUNT,
                    window.shareCount());
            return;
        }
        if (count != window.shareCount()) {
            log.info("The destination's subscribers split stream {} into {} shares: frames group partitions by their "
                    + "share from now on (were {})", frame.streamId(), count, window.shareCount());
            window.shareCount((int) count);
        }
    }

    /** The destination's write failed for want of a schema the source has not shipped (yet). */
    private static boolean schemasMissing(AckFrame ack) {
        return ack.reason() == AckReason.WRITE_FAILED && ack.message().startsWith(SchemaTranslator.MISSING_PREFIX);
    }

    /** An OK for the batch: it leaves the window (its offsets become committable). */
    private void acknowledged(InFlightWindow.Entry<PendingBatch> entry, long now) {
        PendingBatch pending = entry.payload();
        if (window.ack(entry.batchId(), pending) && pending.skips == null) {
            // a skip marker tells the policy and the metrics nothing
            policy.onBatchAcked(entry.records(), pending.wireBytes, entry.sentAtNanos(), now,
                    pending.oldestArrivalNanos);
            events.batchAcked(entry.records(), pending.wireBytes, now - pending.oldestArrivalNanos);
        }
    }

    private void onBatchAck(Relay from, AckFrame ack, long now) {
        InFlightWindow.Entry<PendingBatch> entry = window.get(ack.batchId());
        if (entry == null) {
            return; // late duplicate, or a revoked partition's batch
        }
        PendingBatch pending = entry.payload();
        BatchHeader sent = pending.frame.header();
        String distrust = settings.integrity().distrust(ack, sent);
        if (distrust != null) {
            unverified(from, ack, "batch " + ack.batchId() + " of " + sent.topic() + "-" + sent.partition()
                    + " offsets " + sent.firstOffset() + ".." + sent.lastOffset(), distrust, "the batch is sent again");
            window.retryLater(entry, false, now);
            return;
        }
        if (ack.isOk()) {
            acknowledged(entry, now);
            return;
        }
        events.nack(ack.reason().name());
        if (!ack.reason().retriable()) {
            skipMarkers.onRefused(entry, ack, now);
            return;
        }
        // A route or hop that failed: the ingress avoids it now, so try again soon on another one.
        // Anything else (no subscriber, destination overloaded or failing) backs off exponentially.
        boolean routeProblem = ack.reason() == AckReason.NEXT_HOP_UNREACHABLE || ack.reason() == AckReason.TIMEOUT;
        window.retryLater(entry, routeProblem, now);
        if (schemasMissing(ack)) {
            metadata.schemasMissing(sent.topic());
        }
    }

    /** An answer that would commit or stop, without the destination's valid MAC: counted, logged (throttled). */
    private void unverified(Relay from, AckFrame ack, String what, String why, String consequence) {
        events.unverifiedAck();
        long notLogged = unverifiedWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Ignored the answer {} {} for {} received from relay {}: {}. Taken for a retriable NACK: {} "
                    + "(counted in unverified-acks-total{})", ack.status(), ack.reason(), what, from.name(), why,
                    consequence, notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
    }
}
