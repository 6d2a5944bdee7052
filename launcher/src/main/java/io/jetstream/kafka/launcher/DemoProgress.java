package io.jetstream.kafka.launcher;

import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RouteMetrics;
import io.jetstream.kafka.testkit.link.LinkDirection;
import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.workload.Workload;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Samples the demo every 100 ms: events produced at A, events committed at B (read-committed end
 * offsets), bytes over each WAN link, and batches on each route. Prints a progress line every
 * second and derives end-to-end latency from the two curves: an event delivered at time t as the
 * n-th was produced when the produced count first reached n.
 */
final class DemoProgress {

    private static final long SAMPLE_NANOS = Duration.ofMillis(100).toNanos();

    record Summary(double recordMbPerS, double wireMbPerS, String routeShares, String batchSize, long p50Millis,
                   long p99Millis) {
    }

    private final ReplicationEnvironment env;
    private final List<Workload> workloads;
    private final List<String> destinationTopics;
    private final int valueBytes;
    private final List<long[]> produced = new ArrayList<>(); // {nanos, count}
    private final List<Long> latencies = new ArrayList<>();
    private long delivered;

    DemoProgress(ReplicationEnvironment env, List<Workload> workloads, List<String> destinationTopics, int valueBytes) {
        this.env = env;
        this.workloads = workloads;
        this.destinationTopics = destinationTopics;
        this.valueBytes = valueBytes;
    }

    /** Samples until {@code total} events are committed at B or the timeout passes; true if all arrived. */
    boolean runUntilDelivered(long total, Duration timeout, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        long nextPrint = start + 1_000_000_000L;
        long lastDelivered = 0;
        long lastWire = 0;
        long lastPrintNanos = start;
        try (Admin admin = env.siteB().admin()) {
            while (System.nanoTime() - start < timeout.toNanos()) {
                long now = System.nanoTime();
                long producedNow = workloads.stream().mapToLong(Workload::producedCount).sum();
                produced.add(new long[] {now, producedNow});
                long deliveredNow = committedAtDestination(admin);
                for (long n = delivered + 1; n <= deliveredNow; n += Math.max(1, (deliveredNow - delivered) / 50)) {
                    latencies.add(now - producedAt(n));
                }
                // End offsets also count transaction markers: never show more than was produced.
                delivered = Math.min(total, Math.max(delivered, deliveredNow));
                if (now >= nextPrint || delivered >= total) {
                    long wire = wireBytes();
                    double seconds = (now - lastPrintNanos) / 1e9;
                    out.printf(Locale.ROOT, "[%5.1fs] produced %,d  delivered %,d (%d%%)  %.2f MB/s records  "
                                    + "%.2f MB/s wire  batch %s  routes %s  latency p50 %d ms%n",
                            (now - start) / 1e9, producedNow, delivered, total == 0 ? 100 : delivered * 100 / total,
                            (delivered - lastDelivered) * recordBytes() / seconds / 1e6,
                            (wire - lastWire) / seconds / 1e6, batchSize(), routeShares(), percentile(50));
                    lastDelivered = delivered;
                    lastWire = wire;
                    lastPrintNanos = now;
                    nextPrint = now + 1_000_000_000L;
                }
                if (delivered >= total) {
                    return true;
                }
                Thread.sleep(SAMPLE_NANOS / 1_000_000);
            }
        }
        return false;
    }

    private long producedAt(long n) {
        for (long[] sample : produced) {
            if (sample[1] >= n) {
                return sample[0];
            }
        }
        return produced.get(produced.size() - 1)[0];
    }

    private long committedAtDestination(Admin admin) {
        try {
            Map<String, TopicDescription> topics = admin.describeTopics(destinationTopics).allTopicNames().get();
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            topics.values().forEach(d -> d.partitions().forEach(p ->
                    request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            return admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                    .values().stream().mapToLong(info -> info.offset()).sum();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return delivered;
        } catch (ExecutionException e) {
            return delivered; // topics not created yet, or a transient error: keep the last figure
        }
    }

    private double recordBytes() {
        return valueBytes + 40.0;
    }

    private long wireBytes() {
        return env.links().stream().mapToLong(l -> l.bytesForwarded(LinkDirection.CLIENT_TO_TARGET)).sum();
    }

    String routeShares() {
        long[] bytes = env.links().stream().mapToLong(l -> l.bytesForwarded(LinkDirection.CLIENT_TO_TARGET)).toArray();
        long sum = Arrays.stream(bytes).sum();
        return Arrays.stream(bytes).mapToObj(b -> Long.toString(sum == 0 ? 0 : Math.round(b * 100.0 / sum)))
                .collect(Collectors.joining(","));
    }

    String batchSize() {
        RelayMetrics metrics = env.relay("a1").metrics();
        if (metrics == null) {
            return "n/a";
        }
        long batches = 0;
        long bytes = 0;
        for (int i = 1; i <= env.routes(); i++) {
            RouteMetrics route = metrics.route(ReplicationEnvironment.DESTINATION, "route-" + i);
            batches += route.batchesOut().get();
            bytes += route.bytesOut().get();
        }
        return batches == 0 ? "n/a" : (bytes / batches / 1024) + "KiB";
    }

    private long percentile(int p) {
        if (latencies.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(latencies);
        sorted.sort(null);
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(p / 100.0 * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1_000_000;
    }

    Summary summary(double elapsedSeconds) {
        double recordMb = delivered * recordBytes() / 1e6;
        return new Summary(recordMb / elapsedSeconds, wireBytes() / 1e6 / elapsedSeconds, routeShares(), batchSize(),
                percentile(50), percentile(99));
    }
}
