package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.docker.DockerEngine;
import io.jetstream.kafka.testkit.docker.DockerUnavailableException;
import io.jetstream.kafka.testkit.docker.RelayContainer;
import io.jetstream.kafka.testkit.docker.RelayImage;
import io.jetstream.kafka.testkit.replication.RelayTls;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.Ports;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay as users run it: the image built from {@code relay-node/Dockerfile} (on a base image
 * made from this machine's JDK, the {@code BASE_IMAGE} build argument: nothing can be pulled here),
 * run by a Docker engine as the ingress relay of site A, in place of the relay process of a
 * two-site environment: source-site tasks send to the container over mutual TLS, it forwards to
 * the egress relay of site B, and every record arrives once and in order. Its stream token comes
 * from the container's environment through a config provider, as in {@code config/production/}.
 *
 * <p>Needs a Docker engine: the running one, or a private {@code dockerd} started here (Debian's
 * {@code docker.io}; {@code .ci/run} tries to install it). Where none can run, the class is
 * skipped with a loud line saying why; it is never the only proof of anything (ReplicationIT runs
 * the same path with the relay in a JVM; the production configs are checked by
 * {@code ProductionRelayConfigsTest} in relay-node).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelayContainerIT {

    private static final Logger log = LoggerFactory.getLogger(RelayContainerIT.class);
    private static final String BASE_IMAGE = "jetstream-jre-it:17";
    private static final String TOKEN_VARIABLE = "JETSTREAM_STREAM_TOKEN";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static DockerEngine docker;
    private static String image;
    private static ReplicationEnvironment env;
    private static RelayContainer relay;
    private static int dataPort;

    @BeforeAll
    static void start() throws Exception {
        long startNanos = System.nanoTime();
        try {
            docker = DockerEngine.start();
        } catch (DockerUnavailableException e) {
            skip(e);
        }
        // The two sites start while the image is built: both are mostly waiting (on JVMs, group
        // joins and the engine), and on 2 cores doing them one after the other cost half a minute.
        RelayTls tls = new TestPki(workDir.resolve("pki")).relayTls();
        CompletableFuture<ReplicationEnvironment> sites = CompletableFuture.supplyAsync(() -> startSites(tls));
        try {
            image = RelayImage.build(docker, BASE_IMAGE,
                    "jetstream-relay-it:" + UUID.randomUUID().toString().substring(0, 8));
            docker.requireContainers(BASE_IMAGE);
        } catch (DockerUnavailableException e) {
            closeOnceStarted(sites);
            skip(e);
        } catch (Exception | Error e) {
            closeOnceStarted(sites);
            throw e;
        }
        log.info("Engine {} and image ready after {} ms", docker.version(), (System.nanoTime() - startNanos) / 1_000_000);
        try {
            env = sites.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }

        // The container reads its files as user 10001: give it a world-readable copy (test keys only).
        Path tlsDir = readableCopy(workDir.resolve("container-tls"), tls);
        dataPort = Ports.freePort();
        int adminPort = Ports.freePort();
        Path config = workDir.resolve("relay-container.yaml");
        Files.writeString(config, """
                # The ingress of site A, in a container on the host's network.
                relay.id: a1-container
                io.threads: 1
                listener: {host: 127.0.0.1, port: %d}
                admin: {host: 127.0.0.1, port: %d}
                tls:
                  enabled: true
                  cert.file: /etc/jetstream/tls/relay-cert.pem
                  key.file: /etc/jetstream/tls/relay-key.pem
                  ca.file: /etc/jetstream/tls/ca.pem
                  client.auth: required
                config.providers: env
                config.providers.env.class: org.apache.kafka.common.config.provider.EnvVarConfigProvider
                streams:
                  %s:
                    token: "${env:%s}"
                destinations:
                  %s:
                    routes:
                      direct:
                        hops: [%s]
                buffer.max.bytes: 67108864
                shutdown.drain.timeout.ms: 5000
                """.formatted(dataPort, adminPort, ReplicationEnvironment.STREAM, TOKEN_VARIABLE,
                ReplicationEnvironment.DESTINATION, env.relay("b1").dataEndpoint()));
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
        relay = RelayContainer.start(docker, image, "jetstream-relay-it-" + dataPort, config, tlsDir,
                Map.of(TOKEN_VARIABLE, ReplicationEnvironment.TOKEN), adminPort);
        relay.awaitHealthy(Duration.ofSeconds(90));

        env.deploySink(Map.of());
        env.deploySource(Map.of("relays", "127.0.0.1:" + dataPort));
        env.awaitConnectorsRunning(Duration.ofSeconds(120));
    }

    private static void skip(DockerUnavailableException e) {
        String line = "*** RelayContainerIT SKIPPED: no Docker engine can run containers here (" + e.getMessage()
                + "). The relay image was NOT run. ***";
        System.err.println(line);
        log.warn(line);
        Assumptions.abort(line);
    }

    /** Sites A and B, their relays and the WAN route, TLS on every relay link; no connector yet. */
    private static ReplicationEnvironment startSites(RelayTls tls) {
        try {
            return ReplicationEnvironment.builder(workDir.resolve("sites"))
                    .routes(1)
                    .oneWayDelay(Duration.ofMillis(5))
                    .relayTls(tls)
                    .withoutConnectors()
                    .start();
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /** Waits for the sites' start to end, however it ends, and closes what it started. */
    private static void closeOnceStarted(CompletableFuture<ReplicationEnvironment> sites) {
        ReplicationEnvironment started = sites.handle((environment, failure) -> environment).join();
        if (started != null) {
            started.close();
        }
    }

    private static Path readableCopy(Path dir, RelayTls tls) throws Exception {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Path file : List.of(tls.caFile(), tls.certFile(), tls.keyFile())) {
            Path copy = Files.copy(file, dir.resolve(file.getFileName()));
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        }
        return dir;
    }

    @AfterAll
    static void stop() {
        if (relay != null) {
            log.info("Relay container log:\n{}", tail(relay.logs(), 40));
            relay.close();
        }
        if (env != null) {
            env.close();
        }
        if (docker != null) {
            if (image != null) {
                try {
                    docker.docker(Duration.ofSeconds(60), "rmi", "-f", image);
                } catch (Exception e) {
                    log.warn("Could not remove image {}: {}", image, e.toString());
                }
            }
            docker.close();
        }
    }

    @Test
    @Order(1)
    void recordsReplicatedThroughTheRelayContainerArriveOnceAndInOrder() throws Exception {
        env.siteA().createTopic("demo.container", 3);
        ProducedLog produced = new Workload(WorkloadSpec.builder("demo.container", 3)
                .records(20_000)
                .valueBytes(256)
                .nullKeyEvery(7)
                .extraHeaders(2)
                .compressionType("lz4")
                .build(), env.siteA().bootstrapServers()).run();

        VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                .topicMapping(topic -> "A." + topic)
                .samePartitions(true)
                .deadline(Duration.ofSeconds(180))
                .build()
                .verify(produced);

        assertThat(report.isPerfect()).as(report + env.diagnostics() + "\ncontainer log:\n" + tail(relay.logs(), 40))
                .isTrue();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.delivered()).isEqualTo(20_000);
        // Through the container, not around it: its route carried the batches, the in-process
        // ingress a1 of the environment none.
        assertThat(metric(relay.get("/metrics").body(),
                "jetstream_relay_route_batches_out_total{destination=\"B\",route=\"direct\"}"))
                .as("batches the container sent on its route").isPositive();
        assertThat(env.relay("a1").metrics().route(ReplicationEnvironment.DESTINATION, "route-1").batchesOut().get())
                .as("batches through the environment's own ingress").isZero();
    }

    @Test
    @Order(2)
    void theImagesHealthCheckPassesAndTheRelayRunsAsItsNonRootUser() throws Exception {
        await("the image's HEALTHCHECK reporting healthy")
                .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> "healthy".equals(relay.health()));
        assertThat(relay.user()).isEqualTo("10001:10001");
        assertThat(relay.get("/health").body()).contains("\"relayId\":\"a1-container\"");
    }

    @Test
    @Order(3)
    void dockerStopDrainsAndTheRelayExitsAsAJavaServiceDoes() throws Exception {
        int exit = relay.stop(Duration.ofSeconds(20));
        String logs = relay.logs();
        assertThat(exit).as(tail(logs, 40)).isEqualTo(143);
        assertThat(logs).contains("Shutdown signal received");
    }

    private static double metric(String exposition, String series) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        assertThat(matcher.find()).as(series + " in\n" + exposition).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }
}
