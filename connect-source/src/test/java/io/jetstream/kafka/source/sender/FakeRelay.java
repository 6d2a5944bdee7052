package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay that records the batch, BATCHES and metadata frames it is given (tests of the sender and its
 * users).
 */
public final class FakeRelay implements Relay {

    final String name;
    boolean ready = true;
    boolean preferred = true;
    /** Ready, but its connection closes as a frame is handed over: the frame is released, not sent. */
    boolean closesOnSend;
    int maxPayloadBytes = 16 * 1024 * 1024 - 1024;
    /** The batch frames sent, kept (released by {@link #releaseAll}). */
    public final List<BatchFrame> sent = new ArrayList<>();
    /** The BATCHES frames sent, kept (released by {@link #releaseAll}). */
    public final List<BatchesFrame> grouped = new ArrayList<>();
    final List<TopicMetadataFrame> metadata = new ArrayList<>();

    public FakeRelay(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isReady() {
        return ready;
    }

    @Override
    public boolean send(Frame frame) {
        if (!ready || closesOnSend) {
            ReferenceCountUtil.release(frame);
            return false;
        }
        if (frame instanceof BatchFrame batch) {
            sent.add(batch);
        } else if (frame instanceof BatchesFrame batches) {
            grouped.add(batches);
        } else if (frame instanceof TopicMetadataFrame topicMetadata) {
            metadata.add(topicMetadata);
        } else {
            ReferenceCountUtil.release(frame);
        }
        return true;
    }

    @Override
    public int maxBatchPayloadBytes() {
        return maxPayloadBytes;
    }

    @Override
    public boolean preferred() {
        return preferred;
    }

    public void releaseAll() {
        sent.forEach(ReferenceCountUtil::release);
        grouped.forEach(ReferenceCountUtil::release);
    }
}
