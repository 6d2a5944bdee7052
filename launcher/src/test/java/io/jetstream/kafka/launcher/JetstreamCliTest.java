package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JetstreamCliTest {

    private static final List<String> COMMANDS = List.of("demo", "sites", "relay", "bench", "offsets", "explain");

    @Test
    void aloneItPrintsEveryCommandAsBadUsage() {
        Launcher.Outcome outcome = Launcher.run();
        assertThat(outcome.exitCode()).isEqualTo(2);
        assertThat(outcome.output()).contains("Usage: ./jetstream <command> [options]").contains(COMMANDS);
    }

    @Test
    void helpPrintsEveryCommandAndExits0() {
        for (String help : List.of("--help", "-h", "help")) {
            Launcher.Outcome outcome = Launcher.run(help);
            assertThat(outcome.exitCode()).as(help).isZero();
            assertThat(outcome.text()).as(help).contains(COMMANDS)
                    .contains("run a two-site replication demo and print a RESULT line");
        }
    }

    @Test
    void everyCommandPrintsItsUsageWithHelp() {
        for (List<String> command : List.of(List.of("demo"), List.of("sites"), List.of("bench"), List.of("offsets"),
                List.of("offsets", "translate"), List.of("explain"))) {
            Launcher.Outcome outcome = Launcher.run(concat(command, "--help"));
            assertThat(outcome.exitCode()).as("%s", command).isZero();
            assertThat(outcome.output()).as("%s", command).contains("Usage: ./jetstream " + String.join(" ", command));
        }
        assertThat(Launcher.run("help", "demo").output()).contains("--keep-running").contains("--avro");
    }

    @Test
    void anUnknownCommandOrOptionIsBadUsageNamingIt() {
        Launcher.Outcome command = Launcher.run("deploy");
        assertThat(command.exitCode()).isEqualTo(2);
        assertThat(command.output()).contains("'deploy'");
        Launcher.Outcome option = Launcher.run("--fast");
        assertThat(option.exitCode()).isEqualTo(2);
        assertThat(option.output()).contains("Unknown option: '--fast'");
    }

    @Test
    void aCommandThatFailsWhileRunningExits1NamingTheCommandAndTheError() {
        Launcher.Outcome outcome = Launcher.run("offsets", "translate", "--group", "app", "--topic", "orders",
                "--direction", "to-destination", "--origin-bootstrap", "a:9092", "--destination-bootstrap", "b:9092",
                "--source-alias", "A", "--origin-config", "no-such-client.properties");
        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(outcome.output()).startsWith("offsets failed: java.nio.file.NoSuchFileException: "
                + "no-such-client.properties");
    }

    @Test
    void relayHandsEveryArgumentToTheRelaysOwnCommandLine() {
        Launcher.Outcome help = Launcher.run("relay", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("Usage: java -jar jetstream-relay-node-all.jar --config FILE [--check]");

        Path config = Path.of("..", "config", "relay-demo.yaml");
        assertThat(config).exists();
        Launcher.Outcome check = Launcher.run("relay", "--config", config.toString(), "--check");
        assertThat(check.exitCode()).isZero();
        assertThat(check.output()).contains("relay: configuration " + config + " is valid");
        Launcher.Outcome joined = Launcher.run("relay", "--check", "--config=" + config);
        assertThat(joined.exitCode()).isZero();

        assertThat(Launcher.run("relay").exitCode()).as("no --config").isEqualTo(2);
        assertThat(Launcher.run("relay", "--config", config.toString(), "--bogus").exitCode()).isEqualTo(2);
    }

    @Test
    void sitesKeepsItsDataOnlyWhenTold() {
        assertThat(Launcher.parse(SitesCommand.class, "sites").keepData).isFalse();
        assertThat(Launcher.parse(SitesCommand.class, "sites", "--keep-data").keepData).isTrue();
        Launcher.Outcome outcome = Launcher.run("sites", "--bogus");
        assertThat(outcome.exitCode()).isEqualTo(2);
        assertThat(outcome.output()).contains("Unknown option: '--bogus'").contains("--keep-data");
    }

    private static String[] concat(List<String> head, String last) {
        return Stream.concat(head.stream(), Stream.of(last)).toArray(String[]::new);
    }
}
