package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Command-line handling; serving itself is covered by RelayServerTest and RelayJarIT. */
class RelayMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return RelayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void invalidConfigurationExitsWithTwoAndNamesEveryKey(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("relay.yaml"), """
                relay.id: r1
                listener:
                  port: -1
                tls.enabld: false
                """);

        assertThat(run("--config", config.toString())).isEqualTo(RelayMain.EXIT_USAGE_OR_CONFIG);
        assertThat(stderr()).contains(
                "Invalid value -1 for configuration listener.port: must be between 0 and 65535",
                "Unknown configuration key tls.enabld (did you mean tls.enabled?)",
                "Missing configuration tls.cert.file");
    }

    @Test
    void checkValidatesTheDemoConfigurationWithoutStarting() {
        assertThat(run("--config=../config/relay-demo.yaml", "--check")).isEqualTo(RelayMain.EXIT_OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("is valid: relay.id=demo-relay-b1",
                "listener=127.0.0.1:7070", "tls=OFF", "streams=[demo]", "destinations=[B[direct]]");
    }

    @Test
    void missingFileExitsWithTwo() {
        assertThat(run("-c", "no/such.yaml")).isEqualTo(RelayMain.EXIT_USAGE_OR_CONFIG);
        assertThat(stderr()).contains("no/such.yaml: file not found");
    }

    @Test
    void badArgumentsPrintUsage() {
        assertThat(run()).isEqualTo(RelayMain.EXIT_USAGE_OR_CONFIG);
        assertThat(stderr()).contains("--config FILE is required", "Usage:");
        assertThat(run("--config")).isEqualTo(RelayMain.EXIT_USAGE_OR_CONFIG);
        assertThat(run("--frobnicate")).isEqualTo(RelayMain.EXIT_USAGE_OR_CONFIG);
        assertThat(run("--help")).isEqualTo(RelayMain.EXIT_OK);
    }
}
