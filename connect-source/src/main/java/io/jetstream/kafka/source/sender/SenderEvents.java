package io.jetstream.kafka.source.sender;

/**
 * What the {@link ReplicationSender} tells as it goes, for the task's metrics (the task's
 * {@code SourceSiteMetrics} implements it). One way: the sender tells, and reads nothing back; the
 * metrics read the sender's gauges through suppliers the task hands them, never the sender itself.
 * Called under the sender's lock, so every method is cheap and never calls into the sender.
 */
public interface SenderEvents {

    /** The records of one {@code put}, with their key, value and header bytes. */
    void recordsIn(int records, long bytes);

    void batchEncoded(int records, long uncompressedBytes, long wireBytes, long encodeNanos);

    void batchAcked(int records, long wireBytes, long latencyNanos);

    void resent(int records);

    void timeout();

    void nack(String reason);

    /** An answer that would commit or stop, without the destination's valid MAC. */
    void unverifiedAck();

    void heartbeatSent();

    /** A batch the destination refused for good was skipped (errors.tolerance=all). */
    void refusedBatchSkipped(int records);
}
