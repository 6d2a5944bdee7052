package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.CompressionCodec;
import java.time.Duration;
import java.util.Objects;

/**
 * What the {@link ReplicationSender} needs besides its collaborators. {@code skipRefused}: whether a
 * batch the destination refuses for good is skipped (Connect's {@code errors.tolerance=all}) rather
 * than stopping the task.
 */
public record SenderSettings(String streamId, String nodeId, String destination, CompressionCodec codec,
                             Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes,
                             SenderIntegrity integrity, Duration heartbeatInterval, boolean skipRefused) {

    public SenderSettings {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(integrity, "integrity");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
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
                integrity, heartbeatInterval, skip);
    }
}
