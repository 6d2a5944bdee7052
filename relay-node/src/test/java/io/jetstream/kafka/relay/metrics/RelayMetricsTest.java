package io.jetstream.kafka.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.testing.ManualClock;
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

        assertThat(metrics.peer("p").bytesIn()).as("two connections of one peer share its series")
                .isSameAs(metrics.peer("p").bytesIn());
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
    void aReleasedPeersSeriesStayForTheRetentionThenGo() {
        ManualClock clock = new ManualClock();
        RelayMetrics metrics = new RelayMetrics("r", clock);
        metrics.limitPeers(10, Duration.ofMinutes(5));
        PeerMetrics peer = metrics.peer("gone");
        peer.batchesIn().inc();

        metrics.release(peer);
        clock.advance(Duration.ofMinutes(4));
        assertThat(metrics.scrape()).contains("jetstream_relay_peer_batches_in_total{peer=\"gone\"} 1.0\n");
        PeerMetrics back = metrics.peer("gone");
        assertThat(back.batchesIn()).as("a peer back within the retention continues its series")
                .isSameAs(peer.batchesIn());
        metrics.release(back);
        clock.advance(Duration.ofMinutes(5));

        assertThat(metrics.scrape()).doesNotContain("gone").contains("jetstream_relay_peer_series 0.0\n");
    }

    @Test
    void aPeerSeriesIsKeptWhileAnyOfItsConnectionsHoldsItSoItsCountersNeverGoBack() {
        ManualClock clock = new ManualClock();
        RelayMetrics metrics = new RelayMetrics("r", clock);
        metrics.limitPeers(1, Duration.ZERO);
        PeerMetrics first = metrics.peer("task-0");
        PeerMetrics second = metrics.peer("task-0");
        first.bytesIn().inc(100);

        metrics.release(first);
        metrics.release(first);  // released twice, counted once: the second connection still holds it
        clock.advance(Duration.ofHours(1));
        PeerMetrics stranger = metrics.peer("stranger");  // at the limit, and task-0 is held: shared series

        assertThat(second.bytesIn()).isSameAs(first.bytesIn());
        assertThat(stranger.peer()).isEqualTo("(other)");
        assertThat(metrics.scrape()).contains("jetstream_relay_peer_bytes_in_total{peer=\"task-0\"} 100.0\n",
                "jetstream_relay_peers_folded_total 1.0\n", "jetstream_relay_peer_series 1.0\n");

        metrics.release(second);
        metrics.release(stranger);
        assertThat(metrics.scrape()).doesNotContain("task-0").doesNotContain("peer=\"(other)\"");
    }

    @Test
    void beyondTheLimitANewPeerReplacesTheSeriesReleasedLongestAgoBeforeAnyIsFolded() {
        ManualClock clock = new ManualClock();
        RelayMetrics metrics = new RelayMetrics("r", clock);
        metrics.limitPeers(3, Duration.ofMinutes(5));
        PeerMetrics held = metrics.peer("held");
        for (int i = 0; i < 100; i++) {  // a peer reconnecting under a new id each time
            metrics.release(metrics.peer("churn-" + i));
            clock.advance(Duration.ofMillis(10));
        }

        String text = metrics.scrape();

        assertThat(text).contains("peer=\"held\"", "peer=\"churn-98\"", "peer=\"churn-99\"")
                .doesNotContain("peer=\"churn-97\"").doesNotContain("peer=\"(other)\"")
                .contains("jetstream_relay_peers_folded_total 0.0\n", "jetstream_relay_peer_series 3.0\n");
        assertThat(metrics.peer("held").bytesIn()).isSameAs(held.bytesIn());
    }

    @Test
    void aPeerNamedLikeTheSharedSeriesJoinsItWithoutCountingAsFolded() {
        RelayMetrics metrics = new RelayMetrics("r");

        PeerMetrics peer = metrics.peer("(other)");

        assertThat(peer.peer()).isEqualTo("(other)");
        assertThat(metrics.scrape()).contains("jetstream_relay_peers_folded_total 0.0\n",
                "jetstream_relay_peer_series 0.0\n");
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
