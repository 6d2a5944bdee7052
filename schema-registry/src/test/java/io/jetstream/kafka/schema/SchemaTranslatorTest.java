package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaTranslatorTest {

    private static final RegisteredSchema V1 = RegisteredSchema.avro("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");
    private static final RegisteredSchema V2 = RegisteredSchema.avro("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
            + "{\"name\":\"b\",\"type\":\"string\",\"default\":\"\"}]}");

    private final InMemoryRegistry destination = new InMemoryRegistry(500);
    private final SchemaTranslator translator = new SchemaTranslator(destination, SubjectNameStrategy.TOPIC,
            SubjectNameStrategy.TOPIC, 100);

    private void ship(ShippedSchema... schemas) {
        Map<String, String> configs = new java.util.HashMap<>();
        for (ShippedSchema s : schemas) {
            configs.put(s.key(), s.encode());
        }
        assertThat(translator.accept(configs)).isEqualTo(schemas.length);
    }

    @Test
    void registersUnderTheDestinationSubjectAndRewritesTheId() throws Exception {
        ship(ShippedSchema.translated(3, V1), ShippedSchema.translated(4, V2));
        byte[] first = WireFormat.frame(3, new byte[] {42});
        byte[] second = WireFormat.frame(3, new byte[] {43});
        byte[] evolved = WireFormat.frame(4, new byte[] {44, 0});

        assertThat(translator.translate("A.orders", first, false, true)).isTrue();
        assertThat(translator.translate("A.orders", second, false, true)).isTrue();
        assertThat(translator.translate("A.orders", evolved, false, true)).isTrue();

        assertThat(WireFormat.schemaId(first)).isEqualTo(500);
        assertThat(WireFormat.schemaId(second)).isEqualTo(500);
        assertThat(WireFormat.schemaId(evolved)).isEqualTo(501);
        assertThat(first).endsWith(42);
        assertThat(destination.subjects).containsExactly(Map.entry("A.orders-value", List.of(500, 501)));
        assertThat(destination.calls).as("one registration per id").hasSize(2);
        assertThat(translator.translated()).isEqualTo(3);
    }

    @Test
    void keysAndOtherStrategiesGetTheirOwnSubjects() throws Exception {
        SchemaTranslator byRecord = new SchemaTranslator(destination, SubjectNameStrategy.TOPIC_RECORD,
                SubjectNameStrategy.RECORD, 100);
        byRecord.accept(Map.of(ShippedSchema.translated(3, V1).key(), ShippedSchema.translated(3, V1).encode()));

        byRecord.translate("A.orders", WireFormat.frame(3, new byte[0]), true, true);
        byRecord.translate("A.orders", WireFormat.frame(3, new byte[0]), false, true);

        assertThat(destination.subjects).containsOnlyKeys("A.orders-shop.Order", "shop.Order");
    }

    @Test
    void recordsOutsideTheWireFormatAndPassedIdsStayAsTheyAre() throws Exception {
        ship(ShippedSchema.passed(9, "a JSON schema"));
        byte[] json = WireFormat.frame(9, "{}".getBytes());
        byte[] plain = "hello".getBytes();

        assertThat(translator.translate("A.orders", json, false, true)).isFalse();
        assertThat(translator.translate("A.orders", plain, false, true)).isFalse();
        assertThat(translator.translate("A.orders", null, true, true)).isFalse();

        assertThat(WireFormat.schemaId(json)).isEqualTo(9);
        assertThat(destination.calls).isEmpty();
    }

    @Test
    void anIdNotShippedYetHoldsTheRecordWithAMessageTheSourceAnswers() {
        byte[] value = WireFormat.frame(3, new byte[] {1});
        assertThatThrownBy(() -> translator.translate("A.orders", value, false, true))
                .isInstanceOfSatisfying(SchemaTranslator.Hold.class, hold -> {
                    assertThat(hold.kind()).isEqualTo(SchemaTranslator.HoldKind.MISSING);
                    assertThat(hold.getMessage()).startsWith(SchemaTranslator.MISSING_PREFIX);
                });
        assertThat(WireFormat.schemaId(value)).as("untouched").isEqualTo(3);
    }

    @Test
    void aRegistrationWaitsForTheBatchesBeforeIt() throws Exception {
        ship(ShippedSchema.translated(3, V1));
        assertThatThrownBy(() -> translator.translate("A.orders", WireFormat.frame(3, new byte[0]), false, false))
                .extracting(e -> ((SchemaTranslator.Hold) e).kind()).isEqualTo(SchemaTranslator.HoldKind.OUT_OF_ORDER);
        assertThat(destination.calls).isEmpty();

        translator.translate("A.orders", WireFormat.frame(3, new byte[0]), false, true);
        byte[] later = WireFormat.frame(3, new byte[0]);
        assertThat(translator.translate("A.orders", later, false, false)).as("known: no registration").isTrue();
        assertThat(WireFormat.schemaId(later)).isEqualTo(500);
    }

    @Test
    void anOutageHoldsUntilTheRegistryIsBack() throws Exception {
        ship(ShippedSchema.translated(3, V1));
        destination.down = true;
        assertThatThrownBy(() -> translator.translate("A.orders", WireFormat.frame(3, new byte[0]), false, true))
                .extracting(e -> ((SchemaTranslator.Hold) e).kind()).isEqualTo(SchemaTranslator.HoldKind.UNAVAILABLE);
        destination.down = false;
        byte[] value = WireFormat.frame(3, new byte[0]);
        translator.translate("A.orders", value, false, true);
        assertThat(WireFormat.schemaId(value)).isEqualTo(500);
        assertThat(translator.registryFailures()).isEqualTo(1);
    }

    @Test
    void anIncompatibleSchemaStopsWithAClearErrorEveryTime() throws Exception {
        ship(ShippedSchema.translated(3, V1), ShippedSchema.translated(4, V2));
        destination.refusedSchemas.add(V2.schema());
        translator.translate("A.orders", WireFormat.frame(3, new byte[0]), false, true);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> translator.translate("A.orders", WireFormat.frame(4, new byte[0]), false, true))
                    .isInstanceOfSatisfying(SchemaTranslator.Hold.class, hold -> {
                        assertThat(hold.kind()).isEqualTo(SchemaTranslator.HoldKind.INCOMPATIBLE);
                        assertThat(hold.kind().needsOperator()).isTrue();
                        assertThat(hold.getMessage()).contains("source schema id 4", "A.orders-value", "incompatible");
                    });
        }
        assertThat(translator.incompatible()).isEqualTo(2);

        destination.refusedSchemas.clear(); // the operator relaxed the subject's compatibility
        byte[] value = WireFormat.frame(4, new byte[0]);
        translator.translate("A.orders", value, false, true);
        assertThat(WireFormat.schemaId(value)).isEqualTo(501);
    }

    @Test
    void schemasWithReferencesAreNotTranslated() {
        ship(ShippedSchema.translated(3, new RegisteredSchema("AVRO", "\"string\"", 1)));
        assertThatThrownBy(() -> translator.translate("A.orders", WireFormat.frame(3, new byte[0]), false, true))
                .extracting(e -> ((SchemaTranslator.Hold) e).kind()).isEqualTo(SchemaTranslator.HoldKind.UNSUPPORTED);
    }
}
