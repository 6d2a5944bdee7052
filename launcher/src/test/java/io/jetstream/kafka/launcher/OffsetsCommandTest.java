package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Direction;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OffsetsCommandTest {

    private static final String[] REQUIRED = {"translate", "--group", "app", "--topic", "orders", "--direction",
            "to-destination", "--origin-bootstrap", "a:9092", "--destination-bootstrap", "b:9092", "--source-alias", "A"};

    @Test
    void parsesATranslationWithDefaults() throws Exception {
        OffsetsCommand.Options options = OffsetsCommand.parse(REQUIRED);
        assertThat(options.group()).isEqualTo("app");
        assertThat(options.topic()).isEqualTo("orders");
        assertThat(options.direction()).isEqualTo(Direction.TO_DESTINATION);
        assertThat(options.mapTopic()).isEqualTo("jetstream-offset-map.internal");
        assertThat(options.commit()).isFalse();
        assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void namesWhatIsMissingOrWrong() {
        assertThatThrownBy(() -> OffsetsCommand.parse(new String[] {"translate", "--group", "app"}))
                .isInstanceOf(JetstreamCli.UsageException.class).hasMessageStartingWith("--topic is required");
        String[] sideways = REQUIRED.clone();
        sideways[6] = "sideways";
        assertThatThrownBy(() -> OffsetsCommand.parse(sideways))
                .hasMessageContaining("--direction: 'sideways' is not one of to-destination, to-origin");
        assertThatThrownBy(() -> OffsetsCommand.parse(new String[] {"list"})).hasMessageStartingWith("usage:");
    }

    @Test
    void anUnknownSubcommandExitsWithUsage() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        int code = JetstreamCli.run(new String[] {"offsets", "--bogus"}, new java.io.PrintStream(bytes, true));
        assertThat(code).isEqualTo(2);
        assertThat(bytes.toString()).contains("usage: ./jetstream offsets translate");
    }
}
