package io.jetstream.kafka.core.model;

/**
 * Decides how the source-site sender cuts records into batches and how many batches it keeps in
 * flight. The sender reports what happens ({@code on...}) and asks {@link #decision} whenever it
 * needs the caps: when records arrive, when a batch is acknowledged, and when its linger timer of
 * an open batch fires.
 *
 * <p>A batch closes when it holds {@link BatchDecision#maxRecords()} records or
 * {@link BatchDecision#maxBytes()} uncompressed bytes, or its oldest record has waited
 * {@link BatchDecision#linger()} (see {@link BatchDecision#closes}); a closed batch is sent only
 * while fewer than {@link BatchDecision#maxInFlightBatches()} batches and
 * {@link BatchDecision#maxInFlightBytes()} wire bytes are unacknowledged. The sender must honour a
 * decision until it asks again.
 *
 * <p>The reports are what the sender observes; the caps need none of them ({@link FixedBatchPolicy}
 * ignores them all), but a decorator measures the task's operating point from them
 * ({@code environment.OperatingPointMonitor}: arrivals, round trips, window fullness), so the sender
 * makes every report.
 *
 * <p>All times are nanoseconds of one {@link Clock}. Implementations state their thread-safety;
 * the report methods default to no-ops.
 */
public interface BatchPolicy {

    /** {@code records} records of {@code bytes} uncompressed bytes entered the sender's buffer. */
    default void onRecordsArrived(int records, long bytes, long nowNanos) {
    }

    /**
     * Records currently arrive on {@code partitions} partitions, each filling batches of its own (a
     * batch holds the records of one partition), so each batch fills at the rate over that many.
     */
    default void onActiveStreams(int partitions, long nowNanos) {
    }

    /**
     * A batch was encoded and handed to the network.
     *
     * @param uncompressedBytes the records' bytes before encoding
     * @param wireBytes         the encoded batch's size on the wire, framing included
     * @param encodeNanos       time spent encoding (and compressing) the batch
     */
    default void onBatchSent(int records, long uncompressedBytes, long wireBytes, long encodeNanos, long nowNanos) {
    }

    /**
     * The destination acknowledged a batch as durably written (end to end).
     *
     * @param sentAtNanos              when the batch was handed to the network
     * @param ackedAtNanos             when the acknowledgement arrived
     * @param oldestRecordArrivalNanos when the batch's oldest record entered the sender's buffer
     */
    default void onBatchAcked(int records, long wireBytes, long sentAtNanos, long ackedAtNanos,
                              long oldestRecordArrivalNanos) {
    }

    /**
     * A batch reached the egress relay of its route (a receipt; its answer is still to come). Its
     * transfer time holds the path but none of the destination's delays.
     *
     * @param sentAtNanos     when the batch was handed to the network
     * @param receivedAtNanos when the receipt arrived
     */
    default void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
    }

    /** A batch was negatively acknowledged, timed out or lost with its connection; it will be re-sent. */
    default void onBatchFailed(int records, long wireBytes, long sentAtNanos, long nowNanos) {
    }

    /** Records and uncompressed bytes waiting in the sender's buffer, not yet in a sent batch. */
    default void onBacklog(long records, long bytes, long nowNanos) {
    }

    /** A heartbeat to the relays measured a round trip of {@code rttNanos}. */
    default void onRttSample(long rttNanos, long nowNanos) {
    }

    /** The caps in force at {@code nowNanos}; cheap enough to call for every arrival. */
    BatchDecision decision(long nowNanos);
}
