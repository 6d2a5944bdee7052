package io.jetstream.kafka.testkit.workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces the records of a {@link WorkloadSpec} (see {@link RecordFactory} for their shape) with an idempotent
 * {@code acks=all} producer and records every acknowledged record in a {@link ProducedLog}.
 *
 * <pre>{@code
 * ProducedLog log = new Workload(spec, bootstrapServers).run();          // blocking
 *
 * Workload background = new Workload(spec, bootstrapServers);
 * background.start();                                                    // or in the background
 * ... background.producedCount() ...
 * ProducedLog log = background.stop();                                   // or awaitCompletion(timeout)
 * }</pre>
 *
 * <p>Failed sends are counted in {@link ProducedLog#failedSends()}, not thrown: a test decides whether they matter.
 * An unexpected failure of the producing thread is rethrown by {@link #run()}, {@link #stop()} and
 * {@link #awaitCompletion}. Memory in flight is bounded by the producer's {@code buffer.memory}: {@code send} blocks
 * when it is full.
 *
 * <p>Threading: one producing thread per workload; {@link #producedCount()}, {@link #sentCount()} and
 * {@link #snapshot()} may be called from any thread. A workload runs once.
 */
public final class Workload implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Workload.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final WorkloadSpec spec;
    private final Map<String, Object> producerConfig;
    private final Function<Map<String, Object>, Producer<byte[], byte[]>> producerFactory;
    private final RecordFactory records;
    private final Map<TopicPartition, List<ProducedRecord>> acknowledged = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> firstSendFailure = new AtomicReference<>();
    private final AtomicReference<Throwable> threadFailure = new AtomicReference<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean stopRequested;
    private volatile Thread thread;

    /** A workload producing to the cluster at {@code bootstrapServers}. */
    public Workload(WorkloadSpec spec, String bootstrapServers) {
        this(spec, bootstrapServers, KafkaProducer::new);
    }

    /**
     * A workload whose producer comes from {@code producerFactory}, given the complete producer configuration (a seam
     * for {@code MockProducer} in unit tests).
     */
    public Workload(WorkloadSpec spec, String bootstrapServers,
                    Function<Map<String, Object>, Producer<byte[], byte[]>> producerFactory) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.producerFactory = Objects.requireNonNull(producerFactory, "producerFactory");
        String runId = UUID.randomUUID().toString();
        // Timestamps end at "now": brokers reject timestamps too far in the future (log.message.timestamp.after.max.ms).
        this.records = new RecordFactory(spec, runId, System.currentTimeMillis() - spec.records());
        this.producerConfig = producerConfig(spec, Objects.requireNonNull(bootstrapServers, "bootstrapServers"), runId);
    }

    private static Map<String, Object> producerConfig(WorkloadSpec spec, String bootstrapServers, String runId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "jetstream-workload-" + runId.substring(0, 8));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        // One request in flight keeps per-partition order without the idempotent producer: on
        // these single-broker test sites, idempotent producers of freshly created topics kept
        // re-sending sequence 0 after later batches were appended (OUT_OF_ORDER_SEQUENCE_NUMBER
        // for two minutes, then expired records).
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, spec.compressionType());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.putAll(spec.producerOverrides());
        return config;
    }

    public WorkloadSpec spec() {
        return spec;
    }

    public String runId() {
        return records.runId();
    }

    /** Produces every record and waits for their acknowledgements; blocking. */
    public ProducedLog run() {
        start();
        return join(Long.MAX_VALUE);
    }

    /** Starts producing in a background thread. */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("workload " + runId() + " on " + spec.topic() + " was already started");
        }
        Thread producing = new Thread(this::produceAll, "workload-" + spec.topic() + "-" + runId().substring(0, 8));
        producing.setDaemon(true);
        thread = producing;
        producing.start();
    }

    /** Stops sending after the current record, waits for the acknowledgements of what was sent, returns the log. */
    public ProducedLog stop() {
        stopRequested = true;
        return thread == null ? snapshot() : join(CLOSE_TIMEOUT.toNanos());
    }

    /** Waits for the background run to finish. */
    public ProducedLog awaitCompletion(Duration timeout) throws TimeoutException {
        Thread producing = requireStarted();
        ProducedLog result = join(timeout.toNanos());
        if (producing.isAlive()) {
            throw new TimeoutException("workload " + runId() + " on " + spec.topic() + " still running after "
                    + timeout + ": " + produced.get() + " of " + spec.records() + " records acknowledged");
        }
        return result;
    }

    /** Stops the workload if it runs; idempotent. */
    @Override
    public void close() {
        if (thread != null && thread.isAlive()) {
            stop();
        }
    }

    /** Records acknowledged by the brokers so far. */
    public long producedCount() {
        return produced.get();
    }

    /** Records handed to the producer so far. */
    public long sentCount() {
        return sent.get();
    }

    public boolean isRunning() {
        Thread producing = thread;
        return producing != null && producing.isAlive();
    }

    /** The acknowledged records so far; complete once the run has finished. */
    public ProducedLog snapshot() {
        Map<TopicPartition, List<ProducedRecord>> copy = new HashMap<>();
        acknowledged.forEach((partition, list) -> {
            synchronized (list) {
                copy.put(partition, new ArrayList<>(list));
            }
        });
        return new ProducedLog(runId(), copy, failed.get());
    }

    private Thread requireStarted() {
        Thread producing = thread;
        if (producing == null) {
            throw new IllegalStateException("workload " + runId() + " on " + spec.topic() + " was not started");
        }
        return producing;
    }

    private ProducedLog join(long timeoutNanos) {
        Thread producing = requireStarted();
        long deadline = System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 2);
        try {
            long remaining;
            while (producing.isAlive() && (remaining = deadline - System.nanoTime()) > 0) {
                producing.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(remaining, Long.MAX_VALUE / 2))));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopRequested = true;
            throw new IllegalStateException("interrupted waiting for workload " + runId() + " on " + spec.topic(), e);
        }
        Throwable failure = threadFailure.get();
        if (failure != null) {
            throw new IllegalStateException("workload " + runId() + " on " + spec.topic() + " failed after "
                    + sent.get() + " sends", failure);
        }
        return snapshot();
    }

    private void produceAll() {
        long startNanos = System.nanoTime();
        double nanosPerRecord = spec.recordsPerSecond() > 0 ? 1e9 / spec.recordsPerSecond() : 0;
        try (Producer<byte[], byte[]> producer = producerFactory.apply(Map.copyOf(producerConfig))) {
            // The topic's metadata first, then the schedule: a new producer's first send waits for the metadata
            // (of every partition of the topic), and a schedule started before it would then
            // send everything that fell due meanwhile at once, a burst over hundreds of partitions at the start of
            // every paced run (a steady phase that began with a burst: the environment grid's stalls at 1,200
            // partitions, docs/experiments.md, 7 December 2026).
            producer.partitionsFor(spec.topic());
            startNanos = System.nanoTime();
            for (long seq = 0; seq < spec.records() && !stopRequested; seq++) {
                if (nanosPerRecord > 0) {
                    pace(startNanos + (long) (seq * nanosPerRecord));
                }
                ProducerRecord<byte[], byte[]> record = records.create(seq);
                ProducedRecord expected = expectation(record, seq);
                producer.send(record, (metadata, exception) -> acknowledge(expected, metadata, exception));
                sent.incrementAndGet();
            }
            producer.flush();
            producer.close(CLOSE_TIMEOUT);
        } catch (RuntimeException | Error e) {
            threadFailure.set(e);
            log.error("workload {} on {} failed after {} sends", runId(), spec.topic(), sent.get(), e);
            return;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (failed.get() > 0) {
            log.warn("workload {} on {}: {} sends failed, first failure: {}", runId(), spec.topic(), failed.get(),
                    String.valueOf(firstSendFailure.get()));
        }
        log.info("workload {} on {}: {} records acknowledged, {} failed, in {} ms", runId(), spec.topic(),
                produced.get(), failed.get(), millis);
    }

    /** Waits until {@code dueNanos}; sleeping is fine here, it is the workload's own schedule. */
    private void pace(long dueNanos) {
        long remaining;
        while (!stopRequested && (remaining = dueNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(remaining);
        }
    }

    private static ProducedRecord expectation(ProducerRecord<byte[], byte[]> record, long seq) {
        return new ProducedRecord(-1, seq, RecordHashes.bytes(record.key()), RecordHashes.bytes(record.value()),
                RecordHashes.headers(record.headers(), Set.of()), record.timestamp());
    }

    private void acknowledge(ProducedRecord expected, RecordMetadata metadata, Exception exception) {
        if (exception != null) {
            failed.incrementAndGet();
            firstSendFailure.compareAndSet(null, exception);
            return;
        }
        ProducedRecord record = new ProducedRecord(metadata.offset(), expected.sequence(), expected.keyHash(),
                expected.valueHash(), expected.headersHash(), expected.timestamp());
        List<ProducedRecord> list = acknowledged.computeIfAbsent(
                new TopicPartition(metadata.topic(), metadata.partition()), partition -> new ArrayList<>());
        synchronized (list) {
            list.add(record);
        }
        produced.incrementAndGet();
    }
}
