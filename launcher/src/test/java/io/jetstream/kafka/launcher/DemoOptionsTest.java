package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    @Test
    void avroIsOffByDefault() throws Exception {
        DemoOptions options = DemoOptions.parse(new String[0]);
        assertThat(options.avro()).isFalse();
        assertThat(options.events()).isEqualTo(200_000);
    }

    @Test
    void avroRunsASmallerStreamUnlessTold() throws Exception {
        assertThat(DemoOptions.parse(new String[] {"--avro"}).events()).isEqualTo(20_000);
        DemoOptions told = DemoOptions.parse(new String[] {"--avro", "--events", "5000", "--routes", "1"});
        assertThat(told.avro()).isTrue();
        assertThat(told.events()).isEqualTo(5_000);
        assertThat(told.routes()).isEqualTo(1);
    }

    @Test
    void theUsageNamesTheOption() {
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--help"})).hasMessageContaining("--avro");
    }
}
