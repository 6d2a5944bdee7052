package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SchemaRegistryConfigsTest {

    private static final ConfigDef DEF = SchemaRegistryConfigs.defineStrategies(
            SchemaRegistryConfigs.define(new ConfigDef(), "", ""));

    @Test
    void offByDefault() {
        AbstractConfig config = new AbstractConfig(DEF, Map.of());
        assertThat(SchemaRegistryConfigs.enabled(config)).isFalse();
        assertThat(SchemaRegistryConfigs.valueStrategy(config)).isEqualTo(SubjectNameStrategy.TOPIC);
        assertThat(SchemaRegistryConfigs.errors(Map.of())).isEmpty();
    }

    @Test
    void buildsClientSettings() {
        AbstractConfig config = new AbstractConfig(DEF, Map.of(SchemaRegistryConfigs.ENABLED, "true",
                SchemaRegistryConfigs.URL, "http://a:8081, https://b:8081/apis/ccompat/v7",
                SchemaRegistryConfigs.BEARER_TOKEN, "t", SchemaRegistryConfigs.KEY_STRATEGY, "RecordNameStrategy"));
        RegistryClientSettings settings = SchemaRegistryConfigs.settings(config);
        assertThat(settings.urls()).containsExactly(URI.create("http://a:8081"),
                URI.create("https://b:8081/apis/ccompat/v7"));
        assertThat(settings.bearerToken()).contains("t");
        assertThat(settings.toString()).doesNotContain("=t").contains("bearer token");
        assertThat(SchemaRegistryConfigs.keyStrategy(config)).isEqualTo(SubjectNameStrategy.RECORD);
    }

    @Test
    void badValuesNameTheKeyAndWhatIsWrong() {
        assertThatThrownBy(() -> new AbstractConfig(DEF, Map.of(SchemaRegistryConfigs.URL, "registry:8081")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(SchemaRegistryConfigs.URL)
                .hasMessageContaining("not an http:// or https:// URL");
        assertThatThrownBy(() -> new AbstractConfig(DEF, Map.of(SchemaRegistryConfigs.VALUE_STRATEGY, "Nope")))
                .hasMessageContaining(SchemaRegistryConfigs.VALUE_STRATEGY).hasMessageContaining("TopicNameStrategy");
        assertThatThrownBy(() -> new AbstractConfig(DEF, Map.of(SchemaRegistryConfigs.TRUSTSTORE_LOCATION,
                "/nonexistent/trust.p12"))).hasMessageContaining("not a readable file");
    }

    @Test
    void crossFieldErrorsAreKeyedByTheKeyToFix() {
        assertThat(SchemaRegistryConfigs.errors(Map.of(SchemaRegistryConfigs.ENABLED, "true")))
                .containsOnlyKeys(SchemaRegistryConfigs.URL);
        assertThat(SchemaRegistryConfigs.errors(Map.of(SchemaRegistryConfigs.BASIC_AUTH_USER_INFO, "u:p",
                SchemaRegistryConfigs.BEARER_TOKEN, "t"))).containsOnlyKeys(SchemaRegistryConfigs.BEARER_TOKEN);
        assertThat(SchemaRegistryConfigs.errors(Map.of(SchemaRegistryConfigs.BASIC_AUTH_USER_INFO, "nocolon")))
                .containsOnlyKeys(SchemaRegistryConfigs.BASIC_AUTH_USER_INFO);
        assertThat(List.of(SchemaRegistryConfigs.errors(Map.of(SchemaRegistryConfigs.ENABLED, "true",
                SchemaRegistryConfigs.URL, "http://r:1"))).get(0)).isEmpty();
    }
}
