package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SubjectNameStrategyTest {

    private static final RegisteredSchema ORDER = RegisteredSchema.avro("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");

    @Test
    void namesSubjectsAsConfluentSerializersDo() {
        assertThat(SubjectNameStrategy.TOPIC.subject("A.orders", false, ORDER)).isEqualTo("A.orders-value");
        assertThat(SubjectNameStrategy.TOPIC.subject("A.orders", true, ORDER)).isEqualTo("A.orders-key");
        assertThat(SubjectNameStrategy.RECORD.subject("A.orders", false, ORDER)).isEqualTo("shop.Order");
        assertThat(SubjectNameStrategy.TOPIC_RECORD.subject("A.orders", true, ORDER)).isEqualTo("A.orders-shop.Order");
    }

    @Test
    void recordNamesNeedANamedAvroType() {
        assertThat(SubjectNameStrategy.TOPIC.subject("t", false, RegisteredSchema.avro("\"string\"")))
                .isEqualTo("t-value");
        assertThatThrownBy(() -> SubjectNameStrategy.RECORD.subject("t", false, RegisteredSchema.avro("\"string\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no record name");
        assertThatThrownBy(() -> SubjectNameStrategy.RECORD.subject("t", false, RegisteredSchema.avro("{oops")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not parse");
    }

    @Test
    void parsesShortAndConfluentClassNames() {
        assertThat(SubjectNameStrategy.parse("TopicNameStrategy")).isEqualTo(SubjectNameStrategy.TOPIC);
        assertThat(SubjectNameStrategy.parse("recordnamestrategy")).isEqualTo(SubjectNameStrategy.RECORD);
        assertThat(SubjectNameStrategy.parse("io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"))
                .isEqualTo(SubjectNameStrategy.TOPIC_RECORD);
        assertThatThrownBy(() -> SubjectNameStrategy.parse("TopicStrategy"))
                .hasMessageContaining("TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy");
    }
}
