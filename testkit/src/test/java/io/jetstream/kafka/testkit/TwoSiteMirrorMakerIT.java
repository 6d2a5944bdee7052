package io.jetstream.kafka.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.link.LinkSpec;
import io.jetstream.kafka.testkit.site.ConnectorStatus;
import io.jetstream.kafka.testkit.site.TwoSites;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the test kit with a connector nobody here wrote: MirrorMaker 2's MirrorSourceConnector,
 * deployed on site B through the Connect REST API from a JSON body, pulls from site A's broker
 * through an emulated WAN link with 25 ms one-way delay. The kit's verifier checks every record at
 * B. This is also the runner the MirrorMaker 2 benchmark builds on.
 */
class TwoSiteMirrorMakerIT {

    private static final Duration ONE_WAY_DELAY = Duration.ofMillis(25);
    private static final int RECORDS = 10_000;

    @TempDir
    static Path workDir;

    private static TwoSites sites;
    private static final AtomicReference<LinkEmulator> link = new AtomicReference<>();

    @BeforeAll
    static void startSites() throws Exception {
        sites = TwoSites.start(workDir, a -> a.withoutWorker().wanAdvertiser(brokerWan -> {
            LinkEmulator emulator = new LinkEmulator(LinkSpec.of("A-to-B", 0, ONE_WAY_DELAY), brokerWan);
            link.set(emulator);
            try {
                return emulator.start();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }), b -> { });
    }

    @AfterAll
    static void stopSites() {
        if (sites != null) {
            sites.close();
        }
        if (link.get() != null) {
            link.get().close();
        }
    }

    @Test
    void mirrorMakerReplicatesThroughTheEmulatedWan() throws Exception {
        sites.a().createTopic("orders", 3);
        ProducedLog produced = new Workload(WorkloadSpec.builder("orders", 3)
                .records(RECORDS)
                .valueBytes(200)
                .producerProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")
                .build(), sites.a().bootstrapServers()).run();
        assertThat(produced.size()).isEqualTo(RECORDS);

        String wanBootstrap = sites.a().broker().wanBootstrapServers();
        sites.b().connect().deploy("mm2-orders", Path.of("src/test/resources/mm2-source-connector.json"), Map.of(
                "source.cluster.bootstrap.servers", wanBootstrap,
                "target.cluster.bootstrap.servers", sites.b().bootstrapServers()));
        ConnectorStatus status = sites.b().connect().awaitRunning("mm2-orders", 1, Duration.ofSeconds(90));
        assertThat(status.state()).isEqualTo("RUNNING");

        VerificationReport report = Verifier.builder(sites.b().bootstrapServers())
                .topicMapping(topic -> "A." + topic)
                .samePartitions(true)
                .deadline(Duration.ofSeconds(120))
                .build()
                .verify(produced);

        assertThat(report.isPerfect()).as(report.toString()).isTrue();
        assertThat(report.delivered()).isEqualTo(RECORDS);
        assertThat(report.duplicates()).isZero();
        // Everything crossed the emulated WAN: nothing reached site A's broker around the link.
        assertThat(link.get().connectionsAccepted()).isPositive();
        assertThat(link.get().stats().bytesTargetToClient()).isGreaterThan(RECORDS * 200L / 2);
        List<String> plugins = sites.b().connect().connectorPlugins();
        assertThat(plugins).contains("org.apache.kafka.connect.mirror.MirrorSourceConnector");
    }
}
