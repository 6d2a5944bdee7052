package io.jetstream.kafka.core.model.sim;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * A sender following a {@link BatchPolicy}, on a simulated path: Poisson arrivals every
 * millisecond at a rate that may vary in time, a single encoder thread, a {@link SimLink} to the
 * destination, a single decoder thread there, and acknowledgements back over the reverse
 * direction. A record's latency is the time from its arrival at the sender to the end of its
 * batch's decoding at the destination, or, when the destination commits periodically
 * ({@link PathParams#commitPeriodNanos()}), to the commit that makes it visible and acknowledges it.
 */
public final class BatchingSim {

    private static final long TICK_NANOS = 1_000_000L;
    private boolean receipts;

    private record Chunk(long arrivalNanos, int records) {
    }

    private record Batch(List<Chunk> chunks, int records, long wireBytes, long encodeNanos, long oldestArrival) {
    }

    private final SimLoop loop = new SimLoop();
    private final PathParams path;
    private final BatchPolicy policy;
    private final DoubleUnaryOperator ratePerSecondAt;
    private final Random random;
    private final SimLink forward;
    private final SimLink backward;
    private final ArrayDeque<Chunk> buffer = new ArrayDeque<>();
    private final LatencyHistogram latencies = new LatencyHistogram();
    private final double[] secondSums = new double[100_000];
    private final long[] secondCounts = new long[100_000];
    private final long[] secondDelivered = new long[100_000];
    private int buffered;
    private int inFlightBatches;
    private long inFlightBytes;
    private long encoderFreeAt;
    private long decoderFreeAt;
    private long lingerCheckAt = Long.MAX_VALUE;
    private long measureFrom;
    private long arrivedMeasured;
    private long deliveredMeasured;
    private long drainedMeasured;
    private long batches;
    private long changes;
    private BatchDecision lastSeen;
    private final List<long[]> decisionLog = new ArrayList<>();

    public BatchingSim(PathParams path, BatchPolicy policy, DoubleUnaryOperator ratePerSecondAt, long seed) {
        this.path = path;
        this.policy = policy;
        this.ratePerSecondAt = ratePerSecondAt;
        this.random = new Random(seed);
        this.forward = new SimLink(loop, path.linkBytesPerSecond(), path.oneWayDelayNanos(), path.jitterNanos(),
                path.serviceNoise(), seed + 1);
        this.backward = new SimLink(loop, 0, path.oneWayDelayNanos(), path.jitterNanos(), seed + 2);
    }

    public SimResult run(String name, double seconds, double warmupSeconds, double latencyTargetMillis) {
        measureFrom = SimLoop.seconds(warmupSeconds);
        long end = SimLoop.seconds(seconds);
        for (long t = 0; t < end; t += TICK_NANOS) {
            long tick = t;
            loop.at(tick, () -> arrive(tick));
        }
        if (path.heartbeatIntervalNanos() > 0) {
            // the first heartbeat is the connection handshake, before any batch
            for (long t = 0; t < end; t += path.heartbeatIntervalNanos()) {
                loop.at(t, this::heartbeat);
            }
        }
        loop.runUntil(end);
        for (Chunk c : buffer) {
            recordLatency(c, end);
        }
        double measuredSeconds = (end - measureFrom) / 1e9;
        return new SimResult(name, arrivedMeasured, deliveredMeasured, deliveredMeasured / measuredSeconds,
                latencies.meanMillis(), latencies.percentileMillis(50), latencies.percentileMillis(99),
                latencies.fractionWithinMillis(latencyTargetMillis), timeWeightedMeanMillis(), batches, changes,
                lastSeen == null ? 0 : lastSeen.maxRecords(), drainedMeasured / measuredSeconds);
    }

    /** Mean over each second of arrivals of the mean latency of that second's records. */
    private double timeWeightedMeanMillis() {
        double sum = 0;
        int seconds = 0;
        for (int i = 0; i < secondCounts.length; i++) {
            if (secondCounts[i] > 0) {
                sum += secondSums[i] / secondCounts[i];
                seconds++;
            }
        }
        return seconds == 0 ? Double.NaN : sum / seconds;
    }

    /** From {@code atSeconds} on, the forward link carries {@code bytesPerSecond} (a capacity step). */
    public BatchingSim linkCapacityAt(double atSeconds, double bytesPerSecond) {
        loop.at(SimLoop.seconds(atSeconds), () -> forward.bytesPerSecond(bytesPerSecond));
        return this;
    }

    /** Mean latency (ms) of the records that arrived in second {@code second}, NaN if none. */
    public double meanMillisOfSecond(int second) {
        return secondCounts[second] == 0 ? Double.NaN : secondSums[second] / secondCounts[second];
    }

    /** Records that arrived in second {@code second} and were delivered by the end of the run. */
    public long deliveredOfSecond(int second) {
        return secondDelivered[second];
    }

    /** {@code [timeNanos, maxRecords, maxInFlightBatches]} at each change of caps. */
    public List<long[]> decisionLog() {
        return decisionLog;
    }

    private void arrive(long now) {
        int n = poisson(ratePerSecondAt.applyAsDouble(now / 1e9) * TICK_NANOS / 1e9);
        if (n > 0) {
            buffer.addLast(new Chunk(now, n));
            buffered += n;
            if (now >= measureFrom) {
                arrivedMeasured += n;
            }
            policy.onRecordsArrived(n, (long) n * path.recordBytes(), now);
        }
        trySend(now);
    }

    private void heartbeat() {
        long jitter = path.jitterNanos() > 0 ? (long) (random.nextDouble() * path.jitterNanos() * 2) : 0;
        policy.onRttSample(2 * path.oneWayDelayNanos() + jitter, loop.nanoTime());
    }

    private BatchDecision decision(long now) {
        policy.onBacklog(buffered, (long) buffered * path.recordBytes(), now);
        BatchDecision d = policy.decision(now);
        if (lastSeen == null || !d.sameCaps(lastSeen)) {
            if (lastSeen != null) {
                changes++;
            }
            decisionLog.add(new long[] {now, d.maxRecords(), d.maxInFlightBatches()});
            lastSeen = d;
        }
        return d;
    }

    private void trySend(long now) {
        while (buffered > 0) {
            BatchDecision d = decision(now);
            long oldest = buffer.peekFirst().arrivalNanos();
            if (!d.closes(buffered, (long) buffered * path.recordBytes(), oldest, now)) {
                scheduleLingerCheck(oldest + d.linger().toNanos());
                return;
            }
            int take = (int) Math.max(1, Math.min(buffered, Math.min(d.maxRecords(), d.maxBytes() / path.recordBytes())));
            long wire = path.wireBytes(take);
            if (!d.admits(inFlightBatches, inFlightBytes, wire)) {
                return; // an ack will call trySend again
            }
            send(now, take, wire);
        }
    }

    private void scheduleLingerCheck(long at) {
        if (at < lingerCheckAt || lingerCheckAt <= loop.nanoTime()) {
            lingerCheckAt = at;
            loop.at(at, () -> trySend(loop.nanoTime()));
        }
    }

    private void send(long now, int records, long wire) {
        List<Chunk> chunks = new ArrayList<>();
        int remaining = records;
        while (remaining > 0) {
            Chunk head = buffer.pollFirst();
            int take = Math.min(remaining, head.records());
            chunks.add(new Chunk(head.arrivalNanos(), take));
            if (take < head.records()) {
                buffer.addFirst(new Chunk(head.arrivalNanos(), head.records() - take));
            }
            remaining -= take;
        }
        buffered -= records;
        boolean outlier = path.encodeOutlierChance() > 0 && random.nextDouble() < path.encodeOutlierChance();
        long encode = path.encodeNanos(records) * (outlier ? 20 : 1);
        Batch batch = new Batch(chunks, records, wire, encode, chunks.get(0).arrivalNanos());
        inFlightBatches++;
        inFlightBytes += wire;
        batches++;
        long encodeStart = Math.max(now, encoderFreeAt);
        encoderFreeAt = encodeStart + encode;
        loop.at(encoderFreeAt, () -> transmit(batch));
    }

    /**
     * Also send a receipt on each batch's arrival at the far end, before the destination decodes
     * and commits it, as the egress relay does for senders that ask.
     */
    public BatchingSim withReceipts() {
        this.receipts = true;
        return this;
    }

    private void transmit(Batch batch) {
        long sentAt = loop.nanoTime();
        policy.onBatchSent(batch.records(), (long) batch.records() * path.recordBytes(), batch.wireBytes(),
                batch.encodeNanos(), sentAt);
        forward.send(batch.wireBytes(), arrival -> {
            if (receipts) {
                // the egress relay sits in front of the destination: its receipt leaves on arrival
                backward.send(64, receivedAt -> policy.onBatchReceived(batch.records(), batch.wireBytes(), sentAt,
                        receivedAt));
            }
            long decodeStart = Math.max(arrival, decoderFreeAt);
            decoderFreeAt = decodeStart + (long) (path.decodeFactor() * path.encodeNanos(batch.records()))
                    + path.destinationBatchNanos();
            long deliveredAt = path.committedAt(decoderFreeAt);
            loop.at(deliveredAt, () -> {
                for (Chunk c : batch.chunks()) {
                    recordLatency(c, deliveredAt);
                    secondDelivered[(int) (c.arrivalNanos() / 1_000_000_000L)] += c.records();
                    if (c.arrivalNanos() >= measureFrom) {
                        deliveredMeasured += c.records();
                    }
                    if (deliveredAt >= measureFrom) {
                        drainedMeasured += c.records();
                    }
                }
                backward.send(64, ackedAt -> acked(batch, sentAt, ackedAt));
            });
        });
    }

    private void acked(Batch batch, long sentAt, long ackedAt) {
        inFlightBatches--;
        inFlightBytes -= batch.wireBytes();
        policy.onBatchAcked(batch.records(), batch.wireBytes(), sentAt, ackedAt, batch.oldestArrival());
        trySend(ackedAt);
    }

    private void recordLatency(Chunk c, long deliveredAt) {
        if (c.arrivalNanos() >= measureFrom) {
            latencies.record(deliveredAt - c.arrivalNanos(), c.records());
            int second = (int) (c.arrivalNanos() / 1_000_000_000L);
            secondSums[second] += (deliveredAt - c.arrivalNanos()) / 1e6 * c.records();
            secondCounts[second] += c.records();
        }
    }

    private int poisson(double mean) {
        if (mean <= 0) {
            return 0;
        }
        if (mean > 30) {
            return (int) Math.max(0, Math.round(mean + Math.sqrt(mean) * random.nextGaussian()));
        }
        double limit = Math.exp(-mean);
        double product = random.nextDouble();
        int n = 0;
        while (product > limit) {
            product *= random.nextDouble();
            n++;
        }
        return n;
    }
}
