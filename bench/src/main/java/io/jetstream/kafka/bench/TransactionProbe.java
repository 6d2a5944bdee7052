package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.site.HostPlacement;
import io.jetstream.kafka.testkit.site.KafkaBroker;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Writes what the destination-site task writes with exactly-once, without Connect: one broker, one topic of many
 * partitions, records arriving at a steady rate on random partitions, and one transaction per "poll" after a gap
 * since the last commit, each also writing one progress record per partition it touched to a 5-partition
 * compacted topic (Connect's offsets topic). Per second it prints the transactions, their commit time, the
 * partitions each touched, the records' p50 and longest time from arrival to commit, and the producer's retries;
 * then the whole run's figures, the time its sends waited for buffer memory ({@code bufferpool-wait-time-ns-total})
 * and the broker's CPU.
 * <pre>
 * java -cp "$(cat launcher/target/classpath.txt)" io.jetstream.kafka.bench.TransactionProbe \
 *     --partitions 1200 --rate 2941 --record-bytes 100 --seconds 25 --pause-at-s 15 [--broker-storage memory]
 * </pre>
 * It isolates the destination broker's share of a WAN run's stalls at many partitions: the 1,200-partition cells of
 * the environment grid ({@code docs/bench/2026-12-06-environment-grid.md}, "The stalls at 1,200 partitions are
 * broker B's page faults"). Exit codes: 0 done, 1 failed, 2 bad usage.
 */
@Command(name = "transaction-probe", mixinStandardHelpOptions = true,
        description = "Exactly-once writes over many partitions into one local broker, as the destination task makes"
                + " them: commit times, transaction sizes and retries per second.")
public final class TransactionProbe implements Callable<Integer> {

    private static final String TOPIC = "probe";
    private static final String PROGRESS_TOPIC = "probe-progress";
    private static final int PROGRESS_PARTITIONS = 5;

    @Option(names = "--partitions", defaultValue = "1200", description = "partitions of the topic (default ${DEFAULT-VALUE})")
    private int partitions;

    @Option(names = "--rate", defaultValue = "2941", description = "records per second (default ${DEFAULT-VALUE})")
    private int rate;

    @Option(names = "--record-bytes", defaultValue = "100", description = "value bytes per record (default ${DEFAULT-VALUE})")
    private int recordBytes;

    @Option(names = "--gap-ms", defaultValue = "10",
            description = "time from a commit to the next transaction's first write (exactly.once.transaction.gap.ms;"
                    + " default ${DEFAULT-VALUE})")
    private int gapMs;

    @Option(names = "--seconds", defaultValue = "25", description = "how long records arrive (default ${DEFAULT-VALUE})")
    private int seconds;

    @Option(names = "--pause-at-s", defaultValue = "0",
            description = "no records arrive during this second of the run, as between two phases of the WAN"
                    + " benchmark (0: no pause; default ${DEFAULT-VALUE})")
    private int pauseAtSecond;

    @Option(names = "--broker-storage", defaultValue = "disk",
            description = "the broker's logs on disk (a folder under the system's temporary folder) or memory"
                    + " (/dev/shm); default ${DEFAULT-VALUE}")
    private String brokerStorage;

    @Option(names = "--broker-prop", paramLabel = "K=V", description = "a broker setting (repeatable)")
    private Map<String, String> brokerProps = new LinkedHashMap<>();

    @Option(names = "--producer-prop", paramLabel = "K=V",
            description = "a producer setting on top of the shipped destination connector's (batch.size 262144,"
                    + " linger.ms 5, retry.backoff.ms 10, retry.backoff.max.ms 100; repeatable)")
    private Map<String, String> producerProps = new LinkedHashMap<>();

    private final PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TransactionProbe())
                .setExecutionExceptionHandler((e, commandLine, parsed) -> {
                    commandLine.getErr().println("transaction-probe failed: " + e);
                    return commandLine.getCommandSpec().exitCodeOnExecutionException();
                })
                .execute(args));
    }

    @Override
    public Integer call() throws Exception {
        BenchPlan.BrokerStorage storage = BenchPlan.BrokerStorage.of(brokerStorage);
        Path dir = storage.newLogFolder(Path.of(System.getProperty("java.io.tmpdir")),
                "jetstream-transaction-probe-");
        try (KafkaBroker broker = KafkaBroker.onHost("probe", dir, HostPlacement.LOOPBACK, brokerProps, "1g", null)) {
            broker.start();
            out.printf(Locale.ROOT, "broker on %s (%s); %d partitions, %d records/s of %d B, gap %d ms%n",
                    storage.id(), dir, partitions, rate, recordBytes, gapMs);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1),
                        new NewTopic(PROGRESS_TOPIC, PROGRESS_PARTITIONS, (short) 1)
                                .configs(Map.of("cleanup.policy", "compact")))).all().get(60, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(broker))) {
                producer.initTransactions();
                long pid = broker.process().pid();
                Duration cpuBefore = cpu(pid);
                long start = System.nanoTime();
                double bufferWaitBefore = metric(producer, "bufferpool-wait-time-ns-total");
                Totals totals = write(producer, start);
                double brokerCores = (cpu(pid).toNanos() - cpuBefore.toNanos()) / (double) (System.nanoTime() - start);
                out.printf(Locale.ROOT, "total: %d transactions, %.1f partitions each (most %d), arrival to commit"
                                + " p50 %d ms, p99 %d ms, longest %d ms; %.0f retries; %.0f ms waiting for buffer"
                                + " memory; broker %.2f cores%n",
                        totals.transactions, totals.partitions / (double) Math.max(1, totals.transactions),
                        totals.mostPartitions, percentile(totals.latencies, 0.50), percentile(totals.latencies, 0.99),
                        percentile(totals.latencies, 1.0), retries(producer) - totals.retriesBefore,
                        (metric(producer, "bufferpool-wait-time-ns-total") - bufferWaitBefore) / 1e6, brokerCores);
            }
        } finally {
            WanEnvironment.deleteQuietly(dir);
        }
        return 0;
    }

    private Properties producerConfig(KafkaBroker broker) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "transaction-probe");
        // Connect's producer of an exactly-once source task, then config/sink-connector.json's overrides
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100");
        p.putAll(producerProps);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    /** What the whole run wrote. */
    private static final class Totals {
        final List<Long> latencies = new ArrayList<>();
        long transactions;
        long partitions;
        int mostPartitions;
        double retriesBefore;
    }

    /** Arrivals on a thread of their own, transactions on this one, until every arrival is committed. */
    private Totals write(KafkaProducer<byte[], byte[]> producer, long start) throws InterruptedException {
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        // bounded: at most a minute of arrivals waits, then the arrivals thread blocks (and the run shows it)
        BlockingQueue<long[]> arrivals = new ArrayBlockingQueue<>(Math.max(1000, rate * 60));
        Thread arrivalThread = new Thread(() -> arrive(arrivals, start, end), "probe-arrivals");
        arrivalThread.setDaemon(true);
        Totals totals = new Totals();
        totals.retriesBefore = retries(producer);
        byte[] value = new byte[recordBytes];
        long gapNanos = TimeUnit.MILLISECONDS.toNanos(gapMs);
        long lastCommit = System.nanoTime();
        Second second = new Second(System.nanoTime(), totals.retriesBefore);
        arrivalThread.start();
        while (arrivalThread.isAlive() || !arrivals.isEmpty()) {
            long since = System.nanoTime() - lastCommit;
            if (since < gapNanos) {
                LockSupport.parkNanos(gapNanos - since);
            }
            List<long[]> batch = new ArrayList<>();
            arrivals.drainTo(batch);
            if (batch.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                continue;
            }
            producer.beginTransaction();
            Set<Integer> touched = new HashSet<>();
            for (long[] arrival : batch) {
                producer.send(new ProducerRecord<>(TOPIC, (int) arrival[1], null, value));
                touched.add((int) arrival[1]);
            }
            for (int partition : touched) {
                producer.send(new ProducerRecord<>(PROGRESS_TOPIC, ("progress-" + partition).getBytes(), value));
            }
            long commitStart = System.nanoTime();
            producer.commitTransaction();
            long now = System.nanoTime();
            lastCommit = now;
            for (long[] arrival : batch) {
                long ms = TimeUnit.NANOSECONDS.toMillis(now - arrival[0]);
                totals.latencies.add(ms);
                second.latencies.add(ms);
            }
            totals.transactions++;
            totals.partitions += touched.size();
            totals.mostPartitions = Math.max(totals.mostPartitions, touched.size());
            second.transactions++;
            second.partitions += touched.size();
            second.commitNanos += now - commitStart;
            if (now - second.startNanos >= TimeUnit.SECONDS.toNanos(1)) {
                double retries = retries(producer);
                out.printf(Locale.ROOT, "t=%5.1f s  transactions %3d  commit %6.1f ms  partitions %5.0f  p50 %5d ms"
                                + "  longest %5d ms  retries %5.0f%n", (now - start) / 1e9, second.transactions,
                        second.commitNanos / 1e6 / second.transactions, second.partitions / (double) second.transactions,
                        percentile(second.latencies, 0.5), percentile(second.latencies, 1.0), retries - second.retries);
                second = new Second(now, retries);
            }
        }
        return totals;
    }

    /** One second's figures. */
    private static final class Second {
        final long startNanos;
        final double retries;
        final List<Long> latencies = new ArrayList<>();
        int transactions;
        long partitions;
        long commitNanos;

        Second(long startNanos, double retries) {
            this.startNanos = startNanos;
            this.retries = retries;
        }
    }

    /** Puts {arrival time, partition} on {@code arrivals} at the rate, except during the pause's second. */
    private void arrive(BlockingQueue<long[]> arrivals, long start, long end) {
        Random random = new Random(1);
        for (long n = 0; ; n++) {
            long due = start + (long) (n * 1e9 / rate);
            if (due > end) {
                return;
            }
            if (pauseAtSecond > 0 && TimeUnit.NANOSECONDS.toSeconds(due - start) == pauseAtSecond) {
                continue;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            try {
                arrivals.put(new long[] {due, random.nextInt(partitions)});
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static long percentile(List<Long> values, double q) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
    }

    private static double retries(KafkaProducer<?, ?> producer) {
        return metric(producer, "record-retry-total");
    }

    /** The producer's metric {@code name} in {@code producer-metrics}; NaN if it has none by that name. */
    private static double metric(KafkaProducer<?, ?> producer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return Double.NaN;
    }

    private static Duration cpu(long pid) {
        return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).orElse(Duration.ZERO);
    }
}
