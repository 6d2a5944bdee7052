package io.jetstream.kafka.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class RelayMetricsTest {

    @Test
    void everyDeclaredFamilyIsExportedWithHelpAndTypeAndKeepsPrometheusNaming() {
        RelayMetrics metrics = new RelayMetrics("relay-a1");
        metrics.peer("task-0").bytesIn().inc(100);
        metrics.peer("task-0").rttSeconds().set(0.05125);
        metrics.route("site-b", "direct").batchesOut().inc();
        metrics.route("site-b", "direct").ackLatencySeconds().observe(0.2);
        for (String decision : List.of(RelayMetrics.ROUTE_WEIGHT, RelayMetrics.ROUTE_TRAFFIC_SHARE,
                RelayMetrics.ROUTE_CAPACITY, RelayMetrics.ROUTE_DELIVERED, RelayMetrics.ROUTE_RTT, RelayMetrics.ROUTE_RANKING_RTT,
                RelayMetrics.ROUTE_IN_FLIGHT, RelayMetrics.ROUTE_AWAITING_ANSWER, RelayMetrics.ROUTE_STATE)) {
            metrics.decision(decision, "site-b", "direct").set(1);
        }
        metrics.spent("site-b", "direct", 0.5); // a family without series is not written at all
        metrics.queueDrains("site-b", "direct", 2);
        metrics.spendCapReached("site-b", false);

        String text = metrics.scrape();

        for (RelayMetrics.Family family : metrics.families()) {
            assertThat(family.name()).startsWith(RelayMetrics.PREFIX).doesNotEndWith("_ms");
            assertThat(text).contains("# HELP " + family.name(), "# TYPE " + family.name() + " " + family.type());
            assertThat(family.name().endsWith("_total")).as(family.name()).isEqualTo(family.type().equals("counter"));
        }
        assertThat(text).contains(
                "jetstream_relay_info{relay_id=\"relay-a1\",version=\"dev\"} 1\n",
                "jetstream_relay_peer_bytes_in_total{peer=\"task-0\"} 100.0\n",
                "jetstream_relay_peer_rtt_seconds{peer=\"task-0\"} 0.05125\n",
                "jetstream_relay_route_batches_out_total{destination=\"site-b\",route=\"direct\"} 1.0\n",
                "jetstream_relay_route_ack_latency_seconds_bucket{destination=\"site-b\",route=\"direct\",le=\"0.1\"} 0\n",
                "jetstream_relay_route_ack_latency_seconds_bucket{destination=\"site-b\",route=\"direct\",le=\"0.25\"} 1\n",
                "jetstream_relay_route_ack_latency_seconds_count{destination=\"site-b\",route=\"direct\"} 1\n");
    }

    @Test
    void boundedLabelSetsAreExportedAtZeroFromTheStart() {
        String text = new RelayMetrics("r").scrape();

        assertThat(text).contains(
                "jetstream_relay_errors_total{kind=\"frame_too_large\"} 0.0\n",
                "jetstream_relay_connections{role=\"pending\"} 0.0\n",
                "jetstream_relay_nacks_total{reason=\"buffer_full\"} 0.0\n",
                "jetstream_relay_buffered_bytes 0.0\n",
                "jetstream_relay_acks_total 0.0\n");
    }

    @Test
    void routeSpendIsACounterThatFollowsTheSchedulersRunningSum() {
        RelayMetrics metrics = new RelayMetrics("r");

        metrics.spent("site-b", "direct", 0.25);
        metrics.spent("site-b", "direct", 0.75);
        metrics.spent("site-b", "direct", 0.5); // never reported by a scheduler; ignored, not a decrease

        assertThat(metrics.scrape()).contains("# TYPE jetstream_relay_route_spent_total counter",
                "jetstream_relay_route_spent_total{destination=\"site-b\",route=\"direct\"} 0.75\n");
    }

    @Test
    void jvmMetricsComeFromTheClientLibraryOncePerRelay() {
        RelayMetrics metrics = new RelayMetrics("r");

        metrics.registerJvmMetrics();
        metrics.registerJvmMetrics();

        assertThat(metrics.scrape()).contains("# TYPE jvm_memory_used_bytes gauge", "jvm_threads_current ");
        assertThat(new RelayMetrics("other").scrape()).doesNotContain("jvm_");
    }

    @Test
    void handlesAreResolvedOnceAndShared() {
        RelayMetrics metrics = new RelayMetrics("r");

        assertThat(metrics.peer("p")).isSameAs(metrics.peer("p"));
        assertThat(metrics.route("d", "r")).isSameAs(metrics.route("d", "r"));
        assertThat(metrics.errors(ErrorKind.IO)).isSameAs(metrics.errors(ErrorKind.IO));
    }

    @Test
    void instancesDoNotShareState() {
        RelayMetrics first = new RelayMetrics("a");
        RelayMetrics second = new RelayMetrics("b");

        first.errors(ErrorKind.MALFORMED_FRAME).inc();

        assertThat(second.errors(ErrorKind.MALFORMED_FRAME).get()).isZero();
    }

    @Test
    void removedPeerIsNoLongerExported() {
        RelayMetrics metrics = new RelayMetrics("r");
        metrics.peer("gone").batchesIn().inc();

        metrics.removePeer("gone");

        assertThat(metrics.scrape()).doesNotContain("gone");
    }

    @Test
    void concurrentUpdatesAreNotLost() throws Exception {
        RelayMetrics metrics = new RelayMetrics("r");
        PeerMetrics peer = metrics.peer("p");
        int threads = 4;
        int perThread = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> {
                awaitQuietly(start);
                for (int n = 0; n < perThread; n++) {
                    peer.bytesIn().inc(2);
                    metrics.inFlightBatches().inc();
                    metrics.inFlightBatches().dec();
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join(TimeUnit.SECONDS.toMillis(30));
        }

        assertThat(peer.bytesIn().get()).isEqualTo(2L * threads * perThread);
        assertThat(metrics.inFlightBatches().get()).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
