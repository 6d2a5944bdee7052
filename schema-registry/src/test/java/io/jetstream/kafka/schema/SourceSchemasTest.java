package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceSchemasTest {

    private static final RegisteredSchema V1 = RegisteredSchema.avro("{\"type\":\"record\",\"name\":\"R\","
            + "\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");

    private final InMemoryRegistry registry = new InMemoryRegistry(1);
    private final SourceSchemas schemas = new SourceSchemas(registry);

    @Test
    void looksEachIdUpOnceAndShipsItWithItsTopic() throws Exception {
        int id = registry.register("orders-value", V1);
        byte[] value = WireFormat.frame(id, new byte[] {2});

        assertThat(schemas.observe("orders", null, value)).as("a new id").isTrue();
        assertThat(schemas.observe("orders", null, value)).as("known").isFalse();
        assertThat(schemas.observe("orders", "plain".getBytes(), value)).isFalse();
        assertThat(registry.calls).containsOnlyOnce("GET " + id);
        assertThat(schemas.generation("orders")).isEqualTo(1);
        assertThat(ShippedSchema.decodeAll(schemas.entries("orders")))
                .containsExactly(Map.entry(id, ShippedSchema.translated(id, V1)));
        assertThat(schemas.entries("payments")).isEmpty();
    }

    @Test
    void nonAvroSchemasAndUnknownIdsPass() throws Exception {
        int json = registry.register("orders-value", new RegisteredSchema("JSON", "{\"type\":\"object\"}", 0));
        int protobuf = registry.register("orders-key", new RegisteredSchema("PROTOBUF",
                "syntax = \"proto3\"; message Key { string id = 1; }", 0));

        assertThat(schemas.observe("orders", WireFormat.frame(json, new byte[] {'{', '}'}),
                WireFormat.frame(999, new byte[] {1}))).isTrue();
        assertThat(schemas.observe("orders", WireFormat.frame(protobuf, new byte[] {0, 10, 1, 'k'}), null)).isTrue();

        Map<Integer, ShippedSchema> shipped = ShippedSchema.decodeAll(schemas.entries("orders"));
        assertThat(shipped.get(json).isTranslated()).isFalse();
        assertThat(shipped.get(protobuf).isTranslated()).isFalse();
        assertThat(shipped.get(protobuf).passReason()).contains("PROTOBUF");
        assertThat(shipped.get(999).passReason()).contains("unknown to the source registry");
        assertThat(schemas.passedIds()).isEqualTo(3);
    }

    @Test
    void anUnreachableRegistryIsTheCallersToRetry() throws Exception {
        int id = registry.register("orders-value", V1);
        registry.down = true;

        assertThatThrownBy(() -> schemas.observe("orders", null, WireFormat.frame(id, new byte[0])))
                .isInstanceOf(SchemaRegistryException.class)
                .extracting(e -> ((SchemaRegistryException) e).kind().retriable()).isEqualTo(true);
        assertThat(schemas.entries("orders")).isEmpty();
        assertThat(schemas.lookupFailures()).isEqualTo(1);

        registry.down = false;
        assertThat(schemas.observe("orders", null, WireFormat.frame(id, new byte[0]))).isTrue();
    }

    @Test
    void keepsABoundedNumberOfIdsPerTopic() throws Exception {
        for (int i = 0; i < SourceSchemas.MAX_SCHEMAS_PER_TOPIC + 5; i++) {
            int id = registry.register("s", RegisteredSchema.avro("{\"type\":\"fixed\",\"name\":\"F" + i
                    + "\",\"size\":1}"));
            schemas.observe("orders", null, WireFormat.frame(id, new byte[0]));
        }
        assertThat(schemas.entries("orders")).hasSize(SourceSchemas.MAX_SCHEMAS_PER_TOPIC)
                .doesNotContainKey("jetstream.schema.1");
    }
}
