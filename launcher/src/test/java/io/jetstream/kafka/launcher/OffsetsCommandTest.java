package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Direction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class OffsetsCommandTest {

    private static final String[] REQUIRED = {"offsets", "translate", "--group", "app", "--topic", "orders",
        "--direction", "to-destination", "--origin-bootstrap", "a:9092", "--destination-bootstrap", "b:9092",
        "--source-alias", "A"};

    private static OffsetsTranslateCommand.Options options(String... extra) {
        return Launcher.parse(OffsetsTranslateCommand.class, Stream.concat(Arrays.stream(REQUIRED), Arrays.stream(extra))
                .toArray(String[]::new)).options();
    }

    @Test
    void parsesATranslationWithDefaults() {
        OffsetsTranslateCommand.Options options = options();
        assertThat(options.group()).isEqualTo("app");
        assertThat(options.topic()).isEqualTo("orders");
        assertThat(options.direction()).isEqualTo(Direction.TO_DESTINATION);
        assertThat(options.originBootstrap()).isEqualTo("a:9092");
        assertThat(options.destinationBootstrap()).isEqualTo("b:9092");
        assertThat(options.sourceAlias()).isEqualTo("A");
        assertThat(options.mapTopic()).isEqualTo("jetstream-offset-map.internal");
        assertThat(options.originConfig()).isNull();
        assertThat(options.destinationConfig()).isNull();
        assertThat(options.commit()).isFalse();
        assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void everyOptionSetsItsValue() {
        OffsetsTranslateCommand.Options options = options("--direction", "to-origin", "--map-topic", "map",
                "--origin-config", "a.properties", "--destination-config", "b.properties", "--commit",
                "--timeout-s", "5");
        assertThat(options.direction()).as("the last value wins").isEqualTo(Direction.TO_ORIGIN);
        assertThat(options.mapTopic()).isEqualTo("map");
        assertThat(options.originConfig()).isEqualTo(Path.of("a.properties"));
        assertThat(options.destinationConfig()).isEqualTo(Path.of("b.properties"));
        assertThat(options.commit()).isTrue();
        assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void namesWhatIsMissingOrWrong() {
        assertThatThrownBy(() -> Launcher.parse(OffsetsTranslateCommand.class, "offsets", "translate", "--group", "app"))
                .isInstanceOf(ParameterException.class).hasMessageContaining("Missing required option")
                .hasMessageContaining("--topic").hasMessageContaining("--source-alias");
        assertThatThrownBy(() -> options("--direction", "sideways"))
                .hasMessage("--direction: 'sideways' is not one of to-destination, to-origin");
        assertThatThrownBy(() -> options("--timeout-s", "0")).hasMessage("--timeout-s: 0 is not between 1 and 3600");
        assertThatThrownBy(() -> options("--timeout-s", "soon")).hasMessageContaining("--timeout-s")
                .hasMessageContaining("'soon'");
    }

    @Test
    void withoutTranslateOrWithAnUnknownOptionItExitsWithUsage() {
        for (String[] line : new String[][] {{"offsets"}, {"offsets", "list"}, {"offsets", "--bogus"},
            {"offsets", "translate", "--bogus"}}) {
            Launcher.Outcome outcome = Launcher.run(line);
            assertThat(outcome.exitCode()).as(String.join(" ", line)).isEqualTo(2);
            assertThat(outcome.output()).as(String.join(" ", line)).contains("Usage: ./jetstream offsets");
        }
        assertThat(Launcher.run("offsets", "--bogus").output()).contains("'--bogus'");
        assertThat(Launcher.run("offsets", "translate", "--help").text())
                .contains("--group", "--direction", "--commit", "(default jetstream-offset-map.internal)");
    }
}
