package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.workload.RecordFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probe at site B: a consumer (read_committed, no group) on one destination topic that notes,
 * for every record of a tracked run, its arrival: how many distinct records of the run have
 * arrived, when the last one did, and (for latency runs) arrival time minus record timestamp. The
 * run's producer stamps each record with the wall-clock time it was sent, and both run on this
 * machine's clock. Completeness, order and duplicates are checked afterwards by {@link RunVerifier}.
 *
 * <p>One thread consumes; the progress of a run may be read from any thread.
 */
final class ArrivalProbe implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ArrivalProbe.class);
    private static final Duration POLL = Duration.ofMillis(100);

    /** What the probe has seen of one run. Written by the probe thread only. */
    static final class RunProgress {
        private final boolean keepLatencies;
        private final BitSet seen = new BitSet();
        private volatile long distinct;
        private volatile long lastArrivalNanos;
        private volatile long firstArrivalNanos;
        private int[] latencies = new int[1024];
        private long[] arrivals = new long[1024];
        private int latencyCount;

        RunProgress(boolean keepLatencies) {
            this.keepLatencies = keepLatencies;
        }

        private synchronized void arrived(long sequence, long arrivalMillis, long arrivalNanos, long timestamp) {
            if (sequence < 0 || sequence > Integer.MAX_VALUE || seen.get((int) sequence)) {
                return;
            }
            seen.set((int) sequence);
            if (distinct == 0) {
                firstArrivalNanos = arrivalNanos;
            }
            distinct++;
            lastArrivalNanos = arrivalNanos;
            if (keepLatencies) {
                if (latencyCount == latencies.length) {
                    latencies = java.util.Arrays.copyOf(latencies, latencies.length * 2);
                    arrivals = java.util.Arrays.copyOf(arrivals, arrivals.length * 2);
                }
                arrivals[latencyCount] = arrivalMillis;
                latencies[latencyCount++] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, arrivalMillis - timestamp));
            }
        }

        /** Distinct records of the run seen so far. */
        long distinct() {
            return distinct;
        }

        /** {@link System#nanoTime} of the poll that returned the newest distinct record. */
        long lastArrivalNanos() {
            return lastArrivalNanos;
        }

        /** {@link System#nanoTime} of the poll that returned the run's first record (0 before it). */
        long firstArrivalNanos() {
            return firstArrivalNanos;
        }

        /** Arrival minus record timestamp of each distinct record, in ms, in arrival order. */
        synchronized int[] latenciesMillis() {
            return java.util.Arrays.copyOf(latencies, latencyCount);
        }

        /** Wall-clock arrival time (ms) of each distinct record, in the order of {@link #latenciesMillis()}. */
        synchronized long[] arrivalsMillis() {
            return java.util.Arrays.copyOf(arrivals, latencyCount);
        }
    }

    private final String topic;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, RunProgress> runs = new ConcurrentHashMap<>();
    private final AtomicLong recordBytes;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /** A probe on {@code topic} that adds the record bytes of every record it sees to {@code recordBytes}. */
    ArrivalProbe(String bootstrapServers, String topic, AtomicLong recordBytes) {
        this.topic = topic;
        this.recordBytes = recordBytes;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, "bench-probe",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        this.thread = new Thread(this::consume, "bench-probe-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts counting the records of {@code runId}; call before the run produces. */
    RunProgress track(String runId, boolean keepLatencies) {
        return runs.computeIfAbsent(runId, id -> new RunProgress(keepLatencies));
    }

    /**
     * Waits until {@code expected} distinct records of the run arrived. Fails when nothing new
     * arrived for {@code stall}, or after {@code timeout} in all.
     */
    void awaitArrivals(String what, RunProgress run, long expected, Duration stall, Duration timeout)
            throws TimeoutException, InterruptedException {
        long start = System.nanoTime();
        long lastCount = -1;
        long lastChange = start;
        while (run.distinct() < expected) {
            if (failure != null) {
                throw new IllegalStateException("the probe at B failed", failure);
            }
            long now = System.nanoTime();
            if (run.distinct() != lastCount) {
                lastCount = run.distinct();
                lastChange = now;
            }
            if (now - lastChange > stall.toNanos() || now - start > timeout.toNanos()) {
                throw new TimeoutException(what + ": " + run.distinct() + " of " + expected + " records arrived at B"
                        + (now - start > timeout.toNanos() ? " within " + timeout.toSeconds() + " s"
                        : "; none for " + stall.toSeconds() + " s"));
            }
            Thread.sleep(20);
        }
    }

    private void consume() {
        try {
            List<TopicPartition> assigned = List.of();
            while (running) {
                if (assigned.isEmpty()) {
                    assigned = partitions();
                    if (assigned.isEmpty()) {
                        LockSupport.parkNanos(POLL.toNanos());
                        continue;
                    }
                    consumer.assign(assigned);
                    consumer.seekToBeginning(assigned);
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                long arrivalMillis = System.currentTimeMillis();
                long arrivalNanos = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    observe(record, arrivalMillis, arrivalNanos);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException | Error e) {
            failure = e;
            log.error("probe on {} failed", topic, e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private List<TopicPartition> partitions() {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(1));
            List<TopicPartition> partitions = new ArrayList<>();
            if (infos != null) {
                infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            }
            return partitions;
        } catch (KafkaException e) {
            return List.of(); // not created yet
        }
    }

    private void observe(ConsumerRecord<byte[], byte[]> record, long arrivalMillis, long arrivalNanos) {
        long bytes = Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
        for (Header header : record.headers()) {
            bytes += header.key().getBytes(StandardCharsets.UTF_8).length
                    + (header.value() == null ? 0 : header.value().length);
        }
        recordBytes.addAndGet(bytes);
        Header run = record.headers().lastHeader(RecordFactory.RUN_HEADER);
        Header sequence = record.headers().lastHeader(RecordFactory.SEQUENCE_HEADER);
        if (run == null || run.value() == null || sequence == null) {
            return;
        }
        RunProgress progress = runs.get(new String(run.value(), StandardCharsets.UTF_8));
        if (progress != null) {
            progress.arrived(RecordFactory.decodeSequence(sequence.value()), arrivalMillis, arrivalNanos,
                    record.timestamp());
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
