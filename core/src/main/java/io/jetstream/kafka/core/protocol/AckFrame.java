package io.jetstream.kafka.core.protocol;

import java.util.Objects;

/**
 * Outcome of one BATCH (or TOPIC_METADATA), sent by the destination-site subscriber, or by the relay that
 * gave up on it, back along the reverse path hop by hop to the origin sender. Each relay matches it
 * to the connection the batch came from by {@code (originNodeId, batchId)}.
 *
 * <p>An OK ACK means the records up to {@code lastOffset} are durably written at the destination, so
 * the sender may commit {@code lastOffset + 1} for the topic-partition. For TOPIC_METADATA acks the
 * partition and lastOffset are -1.
 *
 * @param streamId stream of the acknowledged frame
 * @param originNodeId node that sent the acknowledged frame
 * @param batchId batch or metadata id being acknowledged
 * @param status OK or NACK, or RECEIVED for a receipt from the egress relay (not an answer)
 * @param reason {@code NONE}/{@code DUPLICATE} with OK, any other with NACK, {@code NONE} with RECEIVED
 * @param topic origin topic
 * @param partition origin partition, or -1 for metadata
 * @param lastOffset last offset of the batch (written, if OK), or -1 for metadata
 * @param message human-readable detail, possibly empty
 * @param mac the destination-site connector's MAC over every field but the message, or
 *     {@link FrameMac#NONE} (relays' own answers and receipts never have one); relays carry it unchanged
 */
public record AckFrame(String streamId, String originNodeId, long batchId, AckStatus status, AckReason reason,
        String topic, int partition, long lastOffset, String message, FrameMac mac) implements Frame {

    public AckFrame {
        Objects.requireNonNull(mac, "mac");
        WireStrings.checkNotEmpty(streamId, "streamId");
        WireStrings.checkNotEmpty(originNodeId, "originNodeId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        WireStrings.check(topic, "topic");
        WireStrings.check(message, "message");
        if (status == AckStatus.RECEIVED ? reason != AckReason.NONE : (status == AckStatus.OK) != reason.isSuccess()) {
            throw new IllegalArgumentException("reason " + reason + " cannot accompany status " + status);
        }
        if (partition < -1) {
            throw new IllegalArgumentException("partition " + partition + " must be >= -1");
        }
    }

    /** An acknowledgement without a MAC. */
    public AckFrame(String streamId, String originNodeId, long batchId, AckStatus status, AckReason reason,
            String topic, int partition, long lastOffset, String message) {
        this(streamId, originNodeId, batchId, status, reason, topic, partition, lastOffset, message, FrameMac.NONE);
    }

    /** The batch is durably written. */
    public static AckFrame ok(BatchHeader batch) {
        return of(batch, AckStatus.OK, AckReason.NONE, "");
    }

    /** Every record of the batch had already been written (a re-sent batch). */
    public static AckFrame duplicate(BatchHeader batch) {
        return of(batch, AckStatus.OK, AckReason.DUPLICATE, "");
    }

    /** The batch reached the egress relay (a receipt, not an answer; see {@link AckStatus#RECEIVED}). */
    public static AckFrame received(BatchHeader batch) {
        return of(batch, AckStatus.RECEIVED, AckReason.NONE, "");
    }

    /** The batch was not written; {@code message} is cut to 1024 chars. */
    public static AckFrame nack(BatchHeader batch, AckReason reason, String message) {
        return of(batch, AckStatus.NACK, reason, message);
    }

    /** The topic metadata was applied. */
    public static AckFrame ok(TopicMetadataFrame metadata) {
        RoutingHeader r = metadata.routing();
        return new AckFrame(r.streamId(), r.originNodeId(), r.id(), AckStatus.OK, AckReason.NONE, metadata.topic(), -1,
                -1, "");
    }

    public static AckFrame nack(TopicMetadataFrame metadata, AckReason reason, String message) {
        RoutingHeader r = metadata.routing();
        return new AckFrame(r.streamId(), r.originNodeId(), r.id(), AckStatus.NACK, reason, metadata.topic(), -1, -1,
                WireStrings.truncate(message));
    }

    /**
     * Every section of the frame is durably written (or was already). The answer to a BATCHES frame
     * names its first section's topic, partition -1 and lastOffset -1.
     */
    public static AckFrame ok(BatchesFrame frame) {
        return of(frame, AckStatus.OK, AckReason.NONE, -1, "");
    }

    /** The egress relay has the BATCHES frame (a receipt). */
    public static AckFrame received(BatchesFrame frame) {
        return of(frame, AckStatus.RECEIVED, AckReason.NONE, -1, "");
    }

    /** Not every section of the frame was accepted: the sender re-sends them (as BATCH frames if refused). */
    public static AckFrame nack(BatchesFrame frame, AckReason reason, String message) {
        return of(frame, AckStatus.NACK, reason, -1, message);
    }

    /**
     * {@link AckReason#MIXED_SHARES}: the frame's partitions belong to more than one of the
     * {@code shareCount} subscribers; {@code lastOffset} carries the share count.
     */
    public static AckFrame mixedShares(BatchesFrame frame, int shareCount, String message) {
        return of(frame, AckStatus.NACK, AckReason.MIXED_SHARES, shareCount, message);
    }

    private static AckFrame of(BatchesFrame frame, AckStatus status, AckReason reason, long lastOffset,
            String message) {
        RoutingHeader r = frame.routing();
        return new AckFrame(r.streamId(), r.originNodeId(), r.id(), status, reason, frame.sections().get(0).topic(),
                -1, lastOffset, WireStrings.truncate(message));
    }

    private static AckFrame of(BatchHeader batch, AckStatus status, AckReason reason, String message) {
        RoutingHeader r = batch.routing();
        return new AckFrame(r.streamId(), r.originNodeId(), r.id(), status, reason, batch.topic(), batch.partition(),
                batch.lastOffset(), WireStrings.truncate(message));
    }

    /** The same acknowledgement with another MAC. */
    public AckFrame withMac(FrameMac newMac) {
        return new AckFrame(streamId, originNodeId, batchId, status, reason, topic, partition, lastOffset, message,
                newMac);
    }

    /**
     * Whether the answer ends the sender's hold on the frame: OK (the batch is written; the sender
     * commits it) or a NACK that re-sending cannot help (the sender stops). With integrity on, only the
     * destination's valid MAC makes a sender take such an answer at its word.
     */
    public boolean isFinal() {
        return status == AckStatus.OK || status == AckStatus.NACK && !reason.retriable();
    }

    public boolean isOk() {
        return status == AckStatus.OK;
    }

    /** A receipt from the egress relay: the answer (OK or NACK) is still to come. */
    public boolean isReceipt() {
        return status == AckStatus.RECEIVED;
    }

    @Override
    public FrameType type() {
        return FrameType.ACK;
    }
}
