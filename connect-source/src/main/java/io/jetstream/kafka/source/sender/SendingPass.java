package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.protocol.Shares;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The batches one sending pass of {@link SendWindow} hands to each relay, and how they leave:
 * grouped, at the end of the pass, into frames of up to {@code frame.max.partitions} partitions and
 * the relay's {@link Relay#maxBatchPayloadBytes()} of body, one owner each (see below). A frame of
 * one batch leaves as that batch's own BATCH frame, as does a batch marked {@link PendingBatch#alone}.
 *
 * <p>Why: at many partitions and a steady rate each partition seals a batch of a record or two per
 * linger, and every frame costs the relays, the destination and this task the same (routing, a
 * pending entry, a receipt, an acknowledgement, a MAC) whatever it carries; one BATCHES frame per
 * pass and relay pays that once for all of them (issue 30).
 *
 * <p>Order: a partition's batches are collected in offset order, and a frame takes at most one batch
 * of a partition: a later batch of it goes to a later frame of the same relay, and frames leave in
 * the order they were opened. Shares: the egress relay delivers a frame to one subscriber, so a frame
 * holds only partitions of one owner ({@link Shares#owner}) under the share count the egress last
 * announced ({@code MIXED_SHARES}); 1 until it does.
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class SendingPass {

    /** A frame to send: its relay and its batches, in section order. */
    record Outgoing(Relay relay, List<InFlightWindow.Entry<PendingBatch>> batches) {
    }

    private final int maxPartitions;
    private int shareCount = 1;
    /** The batches collected since the last {@link #drain}, per relay, in the order they were collected. */
    private final Map<Relay, List<InFlightWindow.Entry<PendingBatch>>> collected = new LinkedHashMap<>();

    SendingPass(int maxPartitions) {
        this.maxPartitions = maxPartitions;
    }

    /** The batch leaves through {@code relay} at the end of the pass. */
    void collect(Relay relay, InFlightWindow.Entry<PendingBatch> entry) {
        collected.computeIfAbsent(relay, r -> new ArrayList<>()).add(entry);
    }

    /**
     * Frames group partitions by their owner among {@code count} shares from now on
     * (1..{@link Shares#MAX_SHARE_COUNT}).
     */
    void shareCount(int count) {
        if (count < 1 || count > Shares.MAX_SHARE_COUNT) {
            throw new IllegalArgumentException("share count " + count + " is outside 1.." + Shares.MAX_SHARE_COUNT);
        }
        shareCount = count;
    }

    int shareCount() {
        return shareCount;
    }

    /** The frames of what was collected, relay by relay, in the order they must leave; nothing stays collected. */
    List<Outgoing> drain() {
        List<Outgoing> out = new ArrayList<>();
        for (Map.Entry<Relay, List<InFlightWindow.Entry<PendingBatch>>> perRelay : collected.entrySet()) {
            group(perRelay.getKey(), perRelay.getValue(), out);
        }
        collected.clear();
        return out;
    }

    /** Forgets what was collected (the sender closes: nothing leaves). */
    void clear() {
        collected.clear();
    }

    /**
     * Puts each batch in the earliest frame of its owner that is after the frame of its partition's
     * previous batch and has room for it, else in a new frame.
     */
    private void group(Relay relay, List<InFlightWindow.Entry<PendingBatch>> batches, List<Outgoing> out) {
        long maxBody = relay.maxBatchPayloadBytes(); // 0 while unknown: every batch alone
        List<Frame> frames = new ArrayList<>();
        Map<TopicPartition, Integer> lastFrameOf = new HashMap<>();
        int firstOpen = 0; // frames before it take no more batches: never scanned again
        for (InFlightWindow.Entry<PendingBatch> entry : batches) {
            PendingBatch pending = entry.payload();
            TopicPartition partition = entry.partition();
            int owner = Shares.owner(partition.topic(), partition.partition(), shareCount);
            Integer after = lastFrameOf.get(partition);
            int index = -1;
            if (!pending.alone) {
                for (int i = Math.max(firstOpen, after == null ? 0 : after + 1); i < frames.size(); i++) {
                    if (frames.get(i).takes(owner, pending, maxBody)) {
                        index = i;
                        break;
                    }
                }
            }
            if (index < 0) {
                index = frames.size();
                frames.add(new Frame(owner, pending.alone));
            }
            frames.get(index).add(entry);
            lastFrameOf.put(partition, index);
            while (firstOpen < frames.size() && frames.get(firstOpen).full()) {
                firstOpen++;
            }
        }
        for (Frame frame : frames) {
            out.add(new Outgoing(relay, frame.batches));
        }
    }

    /** A frame being filled. */
    private final class Frame {
        private final int owner;
        private final boolean closed;
        private final List<InFlightWindow.Entry<PendingBatch>> batches = new ArrayList<>();
        private long bodyBytes;

        Frame(int owner, boolean closed) {
            this.owner = owner;
            this.closed = closed;
        }

        boolean takes(int batchOwner, PendingBatch pending, long maxBody) {
            return !full() && owner == batchOwner && bodyBytes + pending.sectionBytes <= maxBody;
        }

        boolean full() {
            return closed || batches.size() >= maxPartitions;
        }

        void add(InFlightWindow.Entry<PendingBatch> entry) {
            batches.add(entry);
            bodyBytes += entry.payload().sectionBytes;
        }
    }
}
