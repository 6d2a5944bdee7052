package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShippedSchemaTest {

    @Test
    void schemasRideInConfigEntriesAndComeBackWhole() {
        ShippedSchema avro = ShippedSchema.translated(12, RegisteredSchema.avro("{\"type\":\"string\"}"));
        ShippedSchema json = ShippedSchema.passed(13, "a JSON schema");
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("cleanup.policy", "compact");
        configs.put(avro.key(), avro.encode());
        configs.put(json.key(), json.encode());

        assertThat(ShippedSchema.decodeAll(configs)).containsOnly(Map.entry(12, avro), Map.entry(13, json));
        assertThat(ShippedSchema.topicConfigs(configs)).containsOnly(Map.entry("cleanup.policy", "compact"));
    }

    @Test
    void anEntryThatDoesNotDecodeIsNamed() {
        assertThatThrownBy(() -> ShippedSchema.decodeAll(Map.of("jetstream.schema.x", "{}")))
                .hasMessageContaining("jetstream.schema.x");
        assertThatThrownBy(() -> ShippedSchema.decodeAll(Map.of("jetstream.schema.4", "not json")))
                .hasMessageContaining("jetstream.schema.4");
        assertThatThrownBy(() -> ShippedSchema.decodeAll(Map.of("jetstream.schema.4", "{\"type\":\"AVRO\"}")))
                .hasMessageContaining("neither");
    }
}
