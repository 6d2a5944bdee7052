package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The BATCHES frames whose batches are still in the window, by frame id: how an answer to a frame
 * (one acknowledgement for all its sections) finds its batches. The window keeps its entries per
 * batch; a frame is only the last send of each of its members ({@link PendingBatch#frameId}).
 *
 * <p>A member re-sent since (alone or in another frame), acknowledged, refused, replaced or revoked
 * no longer belongs to the frame ({@link #detach}): a stale answer to the frame then leaves it alone.
 * A frame is forgotten when its last member leaves it, so this holds at most one frame per batch of
 * the window.
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class FramesInFlight {

    /** A frame sent, with what an answer to it is checked against ({@link SenderIntegrity}). */
    static final class SentFrame {
        private final long id;
        private final String streamId;
        private final String firstTopic;
        private final List<InFlightWindow.Entry<PendingBatch>> members;
        /** Members whose last send is still this frame. */
        private int attached;

        private SentFrame(long id, String streamId, String firstTopic,
                          List<InFlightWindow.Entry<PendingBatch>> members) {
            this.id = id;
            this.streamId = streamId;
            this.firstTopic = firstTopic;
            this.members = members;
            this.attached = members.size();
        }

        long id() {
            return id;
        }

        String streamId() {
            return streamId;
        }

        /** The topic of the frame's first section: the one its answers name. */
        String firstTopic() {
            return firstTopic;
        }
    }

    private final Map<Long, SentFrame> byId = new HashMap<>();

    /**
     * The members, in section order, were just sent in frame {@code id}: each leaves the frame it was
     * last sent in and belongs to this one.
     */
    void sent(long id, String streamId, List<InFlightWindow.Entry<PendingBatch>> members) {
        for (InFlightWindow.Entry<PendingBatch> member : members) {
            detach(member.payload());
            member.payload().frameId = id;
        }
        byId.put(id, new SentFrame(id, streamId, members.get(0).partition().topic(), List.copyOf(members)));
    }

    /** The batch no longer belongs to the frame it was last sent in, if any (its {@code frameId} becomes 0). */
    void detach(PendingBatch pending) {
        long id = pending.frameId;
        if (id == 0) {
            return;
        }
        pending.frameId = 0;
        SentFrame frame = byId.get(id);
        if (frame != null && --frame.attached == 0) {
            byId.remove(id);
        }
    }

    /** The frame sent under {@code id} while any of its batches still belongs to it, else null. */
    SentFrame get(long id) {
        return byId.get(id);
    }

    /** The frame's batches that still belong to it, in section order. */
    List<InFlightWindow.Entry<PendingBatch>> members(SentFrame frame) {
        List<InFlightWindow.Entry<PendingBatch>> out = new ArrayList<>(frame.attached);
        for (InFlightWindow.Entry<PendingBatch> member : frame.members) {
            if (member.payload().frameId == frame.id) {
                out.add(member);
            }
        }
        return out;
    }

    void clear() {
        byId.clear();
    }
}
