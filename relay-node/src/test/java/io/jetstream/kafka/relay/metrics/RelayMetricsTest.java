package io.jetstream.kafka.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class RelayMetricsTest {

    /** A sample line of format 0.0.4: name, optional labels, value. */
    private static final Pattern SAMPLE = Pattern.compile(
            "[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*})? "
                    + "(-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?|NaN|[+-]Inf)");

    @Test
    void everyLineOfTheExpositionIsWellFormedAndEveryFamilyHasHelpAndType() {
        RelayMetrics metrics = new RelayMetrics("relay-a1");
        metrics.peer("task-0").bytesIn().add(100);
        metrics.peer("task-0").rttMillis().set(51.25);
        metrics.route("site-b", "direct").batchesOut().inc();

        String text = metrics.scrape();

        for (String line : text.split("\n")) {
            if (!line.startsWith("#")) {
                assertThat(line).matches(SAMPLE);
            }
        }
        for (MetricFamily<?> family : metrics.families()) {
            assertThat(family.name()).startsWith("jetstream_relay_");
            assertThat(text).contains("# HELP " + family.name() + " ", "# TYPE " + family.name() + " ");
            if (family.type() == MetricFamily.Type.COUNTER) {
                assertThat(family.name()).endsWith("_total");
            }
        }
        assertThat(text).contains(
                "jetstream_relay_info{relay_id=\"relay-a1\",version=\"dev\"} 1\n",
                "jetstream_relay_peer_bytes_in_total{peer=\"task-0\"} 100\n",
                "jetstream_relay_peer_rtt_ms{peer=\"task-0\"} 51.25\n",
                "jetstream_relay_route_batches_out_total{destination=\"site-b\",route=\"direct\"} 1\n");
    }

    @Test
    void boundedLabelSetsAreExportedAtZeroFromTheStart() {
        String text = new RelayMetrics("r").scrape();

        assertThat(text).contains(
                "jetstream_relay_errors_total{kind=\"frame_too_large\"} 0\n",
                "jetstream_relay_connections{role=\"pending\"} 0\n",
                "jetstream_relay_nacks_total{reason=\"buffer_full\"} 0\n",
                "jetstream_relay_buffered_bytes 0\n",
                "jetstream_relay_acks_total 0\n");
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

        assertThat(second.errors(ErrorKind.MALFORMED_FRAME).value()).isZero();
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
                    peer.bytesIn().add(2);
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

        assertThat(peer.bytesIn().value()).isEqualTo(2L * threads * perThread);
        assertThat(metrics.inFlightBatches().value()).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
