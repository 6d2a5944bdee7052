package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import java.time.Duration;
import java.util.Objects;

/**
 * What the {@link ReplicationSender} needs besides its collaborators. {@code skipRefused}: whether a
 * batch the destination refuses for good is skipped (Connect's {@code errors.tolerance=all}) rather
 * than stopping the task. {@code frameMaxPartitions}: the most partitions whose batches one frame
 * carries ({@code frame.max.partitions}, 1..{@link BatchesFrame#MAX_SECTIONS}); 1 sends every batch
 * in a BATCH frame of its own.
 */
public record SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                             Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes,
                             SenderIntegrity integrity, Duration heartbeatInterval, boolean skipRefused,
                             int frameMaxPartitions) {

    /** {@code frame.max.partitions} unless configured otherwise. */
    public static final int DEFAULT_FRAME_MAX_PARTITIONS = 1024;

    public SenderSettings {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(integrity, "integrity");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        if (frameMaxPartitions < 1 || frameMaxPartitions > BatchesFrame.MAX_SECTIONS) {
            throw new IllegalArgumentException("frameMaxPartitions " + frameMaxPartitions + " is outside 1.."
                    + BatchesFrame.MAX_SECTIONS);
        }
    }

    /** Frames of up to {@link #DEFAULT_FRAME_MAX_PARTITIONS} partitions. */
    public SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                          Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity,
                          Duration heartbeatInterval, boolean skipRefused) {
        this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, integrity,
                heartbeatInterval, skipRefused, DEFAULT_FRAME_MAX_PARTITIONS);
    }

    /** A refused batch stops the task. */
    public SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                          Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity,
                          Duration heartbeatInterval) {
        this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, integrity,
                heartbeatInterval, false);
    }

    /** Without end-to-end heartbeats. */
    public SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                          Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity) {
        this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, integrity,
                Duration.ZERO);
    }

    /** Without end-to-end integrity. */
    public SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                          Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes) {
        this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, SenderIntegrity.OFF);
    }

    /** The same settings, skipping refused batches or not. */
    public SenderSettings skippingRefused(boolean skip) {
        return new SenderSettings(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes,
                integrity, heartbeatInterval, skip, frameMaxPartitions);
    }

    /** The same settings with frames of at most {@code partitions} partitions. */
    public SenderSettings framingAtMost(int partitions) {
        return new SenderSettings(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes,
                integrity, heartbeatInterval, skipRefused, partitions);
    }
}
