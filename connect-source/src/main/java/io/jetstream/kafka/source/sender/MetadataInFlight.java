package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import java.util.HashMap;
import java.util.Map;

/**
 * Topic metadata frames handed to a relay and not answered yet, each with whom to tell its answer
 * (the {@link Listener} that sent it, as a request carries its reply-to), and who to tell when the
 * destination lacks a topic's schemas (the listener that last sent the topic's metadata, which
 * ships its schemas with it). Not thread-safe: used under the sender's lock.
 */
public final class MetadataInFlight {

    /**
     * Told whether the destination applied a topic's metadata (ACK) or not (NACK), and that it
     * refused a batch of a topic for a schema it has not received (a destination task that restarted
     * since they were shipped): the topic's schemas go again.
     */
    public interface Listener {
        void onMetadataAcknowledged(String topic, int partitionCount, long schemaGeneration, boolean applied);

        default void onSchemasMissing(String topic) {
        }
    }

    /** A metadata frame sent and not answered yet. */
    record Sent(String topic, int partitionCount, long schemaGeneration, Listener listener) {
    }

    /** An answer to metadata, to tell outside the sender's lock ({@link #tell()}): the listener may call back in. */
    record Answer(Sent sent, boolean applied) {
        void tell() {
            sent.listener().onMetadataAcknowledged(sent.topic(), sent.partitionCount(), sent.schemaGeneration(),
                    applied);
        }
    }

    private static final int MAX_IN_FLIGHT = 10_000;

    private final Map<Long, Sent> inFlight = new HashMap<>();
    private final Map<String, Listener> byTopic = new HashMap<>();

    /** Notes a frame about to be sent; {@link #lost} when no relay took it. */
    void sending(TopicMetadataFrame frame, long schemaGeneration, Listener listener) {
        if (inFlight.size() >= MAX_IN_FLIGHT) {
            inFlight.clear(); // answers lost with a relay; the publisher re-sends anyway
        }
        inFlight.put(frame.routing().id(), new Sent(frame.topic(), frame.partitionCount(), schemaGeneration, listener));
        byTopic.put(frame.topic(), listener);
    }

    void lost(long id) {
        inFlight.remove(id);
    }

    /** The frame an answer is about, or null when the answer is about a batch. */
    Sent answering(AckFrame ack) {
        return inFlight.get(ack.batchId());
    }

    /** The answer counts (verified, or integrity is off): the frame is answered. */
    void answered(AckFrame ack) {
        inFlight.remove(ack.batchId());
    }

    /** The destination lacks a schema of the topic: whoever ships the topic's metadata ships its schemas again. */
    void schemasMissing(String topic) {
        Listener listener = byTopic.get(topic);
        if (listener != null) {
            listener.onSchemasMissing(topic);
        }
    }
}
