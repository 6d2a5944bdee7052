package io.jetstream.kafka.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.testing.AdminClient;
import io.jetstream.kafka.relay.testing.PrometheusParser;
import io.jetstream.kafka.relay.testing.PrometheusParser.Family;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scrapes {@code GET /metrics} of a live relay over its admin socket, after batches crossed it, and
 * reads the answer with the Prometheus project's own parser ({@link PrometheusParser}): the text is
 * valid, every family the relay declares is there with its type, the names keep Prometheus'
 * conventions, and the client library's JVM metrics come along.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsScrapeTest {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final int BATCHES = 20;

    @Test
    void liveScrapeParsesWithThePrometheusParserAndKeepsItsConventions() throws Exception {
        PrometheusParser.requireInstalled();
        EventLoopGroup clients = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (TestRelay relay = TestRelay.start(TestRelay.egress("relay-b1"));
             TestSubscriber subscriber = new TestSubscriber("sink-0", relay.data(), 0, 1, clients);
             TestSender sender = new TestSender("source-0", relay.data(), clients)) {
            relay.metrics().registerJvmMetrics();
            await("clients ready").atMost(WAIT).until(() -> subscriber.isReady() && sender.isReady());
            for (int i = 0; i < BATCHES; i++) {
                sender.send("orders", i % 4, 5, 100);
            }
            await(BATCHES + " acks").atMost(WAIT).until(() -> sender.outcomes.size() == BATCHES);

            HttpResponse<String> scrape = new AdminClient(relay.admin()).get("/metrics");
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("content-type")).contains(RelayMetrics.CONTENT_TYPE);
            Map<String, Family> families = PrometheusParser.parse(scrape.body());

            for (RelayMetrics.Family declared : relay.metrics().families()) {
                String parsedName = declared.type().equals("counter")
                        ? declared.name().substring(0, declared.name().length() - "_total".length()) : declared.name();
                assertThat(declared.name()).as("counters end in _total").matches(
                        n -> !declared.type().equals("counter") || n.endsWith("_total"));
                assertThat(families).as("declared family %s", declared.name()).containsKey(parsedName);
                assertThat(families.get(parsedName).type()).as(declared.name()).isEqualTo(declared.type());
            }
            for (Family family : families.values()) {
                assertThat(family.name()).as("base units: seconds, not milliseconds")
                        .doesNotEndWith("_ms").doesNotContain("_millis");
                assertThat(family.help()).as("help of %s", family.name()).isNotBlank();
                if (!family.type().equals("counter")) {
                    assertThat(family.samples()).as("only counters end in _total: %s", family.name())
                            .allSatisfy(s -> assertThat(s.name()).doesNotEndWith("_total"));
                }
            }
            assertThat(families).containsKeys("jvm_memory_used_bytes", "jvm_threads_current", "process_cpu_seconds");

            Family acks = families.get("jetstream_relay_acks");
            assertThat(acks.value("jetstream_relay_acks_total", Map.of())).isEqualTo(BATCHES);
            Family latency = families.get("jetstream_relay_route_ack_latency_seconds");
            Map<String, String> route = Map.of("destination", TestRelay.DESTINATION, "route", "direct");
            assertThat(latency.type()).isEqualTo("histogram");
            assertThat(latency.value("jetstream_relay_route_ack_latency_seconds_count", route)).isEqualTo(BATCHES);
            assertThat(latency.value("jetstream_relay_route_ack_latency_seconds_bucket",
                    Map.of("destination", TestRelay.DESTINATION, "route", "direct", "le", "+Inf"))).isEqualTo(BATCHES);
            assertThat(families.get("jetstream_relay_peer_bytes_in")
                    .value("jetstream_relay_peer_bytes_in_total", Map.of("peer", "source-0"))).isPositive();
        } finally {
            clients.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        LeakChecks.assertNoLeaks();
    }
}
