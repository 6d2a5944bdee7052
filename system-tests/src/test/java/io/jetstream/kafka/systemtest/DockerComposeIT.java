package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The top-level docker-compose.yml two-site trial, checked without a Docker engine (none runs on
 * the CI machines): the file is valid Compose (Debian's docker-compose, {@code config -q}), the
 * certificate script makes certificates the relays accept, the relays' configs validate, and the
 * trial's connector configs are the shipped ones with only addresses, stream and TLS changed. That
 * the stack runs end to end needs an engine and the images: docs/operations.md says how.
 */
class DockerComposeIT {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path COMPOSE = ROOT.resolve("config").resolve("compose");

    @Test
    void theComposeFileIsValidCompose() throws Exception {
        String compose = which("docker-compose");
        if (compose == null) {
            System.err.println("*** DockerComposeIT: docker-compose is not installed, docker-compose.yml NOT validated"
                    + " (apt-get install --no-install-recommends docker-compose; .ci/run does) ***");
        }
        Assumptions.assumeTrue(compose != null, "docker-compose is not installed");
        Result result = run(ROOT, List.of(compose, "-f", ROOT.resolve("docker-compose.yml").toString(), "config", "-q"));
        assertThat(result.exit()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"relay-ingress", "relay-egress"})
    void theRelayConfigsValidateWithTheScriptsCertificates(String relay, @TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(which("openssl") != null, "openssl is not installed");
        Path script = dir.resolve("make-certs.sh");
        Files.copy(COMPOSE.resolve("make-certs.sh"), script);
        Result made = run(dir, List.of("sh", script.toString()));
        assertThat(made.exit()).as(made.output()).isZero();
        Path tls = dir.resolve("tls");
        for (String file : List.of("ca.pem", relay + ".pem", relay + ".key", "connector.pem", "connector.key")) {
            assertThat(tls.resolve(file)).isRegularFile();
        }
        assertThat(Files.readString(tls.resolve(relay + ".key"))).startsWith("-----BEGIN PRIVATE KEY-----");
        Result verified = run(dir, List.of("openssl", "verify", "-CAfile", tls.resolve("ca.pem").toString(),
                tls.resolve(relay + ".pem").toString(), tls.resolve("connector.pem").toString()));
        assertThat(verified.exit()).as(verified.output()).isZero();

        Path yaml = dir.resolve(relay + ".yaml");
        Files.writeString(yaml, Files.readString(COMPOSE.resolve(relay + ".yaml"))
                .replace("/etc/jetstream/tls/", tls + File.separator));
        RelayConfig config = RelayConfig.load(yaml);
        assertThat(config.relayId()).isEqualTo(relay);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"source-connector.json", "sink-connector.json"})
    void theTrialsConnectorConfigsAreTheShippedOnesWithAddressesStreamAndTls(String name) throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode shipped = json.readTree(ROOT.resolve("config").resolve(name).toFile());
        JsonNode trial = json.readTree(COMPOSE.resolve(name).toFile());
        Set<String> mayDiffer = Set.of("source.cluster.bootstrap.servers", "target.cluster.bootstrap.servers",
                "relays", "stream.id", "stream.token", "topics.regex", "topics.allow", "relay.tls.enabled",
                "relay.tls.ca.file", "relay.tls.cert.file", "relay.tls.key.file");
        Set<String> keys = new HashSet<>();
        shipped.fieldNames().forEachRemaining(keys::add);
        trial.fieldNames().forEachRemaining(keys::add);
        for (String key : keys) {
            if (!mayDiffer.contains(key)) {
                assertThat(trial.path(key)).as(key).isEqualTo(shipped.path(key));
            }
        }
        assertThat(trial.path("relay.tls.enabled").asText()).isEqualTo("true");
        assertThat(trial.path("relays").asText()).startsWith("relay-");
    }

    /**
     * The trial gives each role a token of its own: the source-site connector's token grants sending
     * at the ingress and nothing at the egress, the destination-site connector's grants subscribing
     * at the egress only, and the ingress presents the egress the relay token it accepts.
     */
    @Test
    void theTrialsTokensGrantEachPartyItsOwnRoleOnly(@TempDir Path dir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        String sourceToken = json.readTree(COMPOSE.resolve("source-connector.json").toFile()).path("stream.token")
                .asText();
        String sinkToken = json.readTree(COMPOSE.resolve("sink-connector.json").toFile()).path("stream.token")
                .asText();
        StreamSpec ingress = trialStream(dir, "relay-ingress");
        StreamSpec egress = trialStream(dir, "relay-egress");
        assertThat(ingress.tokenMatches(PeerRole.SENDER, sourceToken)).isTrue();
        assertThat(egress.tokenMatches(PeerRole.SUBSCRIBER, sinkToken)).isTrue();
        assertThat(egress.tokenMatches(PeerRole.RELAY, ingress.tokenFor(PeerRole.RELAY).value())).isTrue();
        for (PeerRole role : List.of(PeerRole.SUBSCRIBER, PeerRole.RELAY)) {
            assertThat(egress.tokenMatches(role, sourceToken)).as("source token as " + role).isFalse();
        }
        for (PeerRole role : List.of(PeerRole.SENDER, PeerRole.RELAY)) {
            assertThat(egress.tokenMatches(role, sinkToken)).as("sink token as " + role).isFalse();
        }
    }

    /** The trial relay's stream, from its YAML with the certificate paths pointed at throwaway files. */
    private static StreamSpec trialStream(Path dir, String relay) throws IOException {
        Path tls = dir.resolve("tls-" + relay);
        Files.createDirectories(tls);
        for (String file : List.of(relay + ".pem", relay + ".key", "ca.pem")) {
            Files.writeString(tls.resolve(file), "placeholder");
        }
        Path yaml = dir.resolve(relay + ".yaml");
        Files.writeString(yaml, Files.readString(COMPOSE.resolve(relay + ".yaml"))
                .replace("/etc/jetstream/tls/", tls + File.separator));
        return RelayConfig.load(yaml).stream("trial").orElseThrow();
    }

    @Test
    void everyFileTheComposeFileMountsIsInTheRepository() throws IOException {
        String compose = Files.readString(ROOT.resolve("docker-compose.yml"));
        List<String> missing = new ArrayList<>();
        for (String line : compose.lines().toList()) {
            String trimmed = line.trim();
            if (trimmed.startsWith("- ./config/")) {
                String source = trimmed.substring(2, trimmed.indexOf(':'));
                if (!source.endsWith("/tls") && !Files.exists(ROOT.resolve(source))) {
                    missing.add(source);
                }
            }
        }
        assertThat(missing).isEmpty();
        assertThatCode(() -> new ObjectMapper().readTree(
                COMPOSE.resolve("grafana/dashboards/jetstream-relays.json").toFile())).doesNotThrowAnyException();
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(command + " did not finish in 60 s");
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static String which(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }
}
