package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class DemoArgumentsTest {

    private static DemoOptions options(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "demo";
        System.arraycopy(args, 0, line, 1, args.length);
        return Launcher.parse(DemoCommand.class, line).options();
    }

    @Test
    void withoutOptionsTheDemoRunsItsDefaults() {
        assertThat(options()).isEqualTo(new DemoOptions(200_000, 3, 500_000, Duration.ofMillis(25), 0, 512,
                Duration.ofSeconds(300), false, null, false));
    }

    @Test
    void everyOptionSetsItsValue() {
        assertThat(options("--events", "1000", "--routes", "1", "--link-mbps", "2.5", "--delay-ms", "40", "--rate",
                "300", "--value-bytes", "100", "--timeout-s", "60", "--routing", "round-robin",
                "--keep-running", "--avro"))
                .isEqualTo(new DemoOptions(1000, 1, 2_500_000, Duration.ofMillis(40), 300, 100,
                        Duration.ofSeconds(60), true, "round-robin", true));
        assertThat(options("--routing=adaptive").routing()).isEqualTo("adaptive");
        assertThat(options("--routes", "1", "--routes", "2").routes()).as("the last value wins").isEqualTo(2);
    }

    @Test
    void avroRunsASmallerStreamUnlessTold() {
        assertThat(options("--avro").events()).isEqualTo(20_000);
        DemoOptions told = options("--avro", "--events", "5000", "--routes", "1");
        assertThat(told.avro()).isTrue();
        assertThat(told.events()).isEqualTo(5_000);
        assertThat(told.routes()).isEqualTo(1);
    }

    @Test
    void aValueOutOfRangeFailsNamingTheOptionAndItsRange() {
        assertThatThrownBy(() -> options("--routes", "4")).isInstanceOf(ParameterException.class)
                .hasMessage("--routes: 4 is not between 1 and 3");
        assertThatThrownBy(() -> options("--events", "0")).hasMessage("--events: 0 is not between 1 and 100000000");
        assertThatThrownBy(() -> options("--link-mbps", "0.001"))
                .hasMessage("--link-mbps: 0.001 is not between 0.01 and 10000");
        assertThatThrownBy(() -> options("--link-mbps", "NaN")).hasMessageStartingWith("--link-mbps: NaN");
        assertThatThrownBy(() -> options("--delay-ms", "5001")).hasMessageStartingWith("--delay-ms: 5001");
        assertThatThrownBy(() -> options("--rate", "-1")).hasMessageStartingWith("--rate: -1");
        assertThatThrownBy(() -> options("--value-bytes", "23")).hasMessageStartingWith("--value-bytes: 23");
        assertThatThrownBy(() -> options("--timeout-s", "9")).hasMessageStartingWith("--timeout-s: 9");
    }

    @Test
    void aPolicyMustBeOneOfTheKnownOnes() {
        assertThatThrownBy(() -> options("--routing", "cheapest"))
                .hasMessage("--routing: 'cheapest' is not one of round-robin, adaptive");
    }

    @Test
    void notANumberOrNoValueFailsNamingTheOption() {
        assertThatThrownBy(() -> options("--events", "many")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("--events").hasMessageContaining("'many'");
        assertThatThrownBy(() -> options("--routes")).hasMessageContaining("--routes");
    }

    @Test
    void badUsageExits2BeforeAnythingStarts() {
        Launcher.Outcome range = Launcher.run("demo", "--routes", "9");
        assertThat(range.exitCode()).isEqualTo(2);
        assertThat(range.output()).startsWith("--routes: 9 is not between 1 and 3");
        Launcher.Outcome unknown = Launcher.run("demo", "--fast");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.output()).contains("Unknown option: '--fast'");
        Launcher.Outcome removed = Launcher.run("demo", "--batching", "adaptive");
        assertThat(removed.exitCode()).as("--batching went with the adaptive batch policy").isEqualTo(2);
        assertThat(removed.output()).contains("Unknown option").contains("'--batching'");
    }

    @Test
    void theUsageNamesEveryOptionWithItsDefault() {
        Launcher.Outcome help = Launcher.run("demo", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.text()).contains("--events", "--routes", "--link-mbps", "--delay-ms", "--rate",
                "--value-bytes", "--timeout-s", "--routing", "--keep-running", "--avro",
                "(default 200000; 20000 with --avro)", "1 to 3 (default 3)", "(default 0.5:", "(default 300)");
    }
}
