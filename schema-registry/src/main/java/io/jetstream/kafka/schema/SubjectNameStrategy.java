package io.jetstream.kafka.schema;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The subject a schema is registered under at the destination, as Confluent's serializers name
 * them: {@link #TOPIC} {@code <topic>-key} / {@code <topic>-value} (the default), {@link #RECORD}
 * the record's full name, {@link #TOPIC_RECORD} {@code <topic>-<full name>}. The topic is the
 * destination topic.
 */
public enum SubjectNameStrategy {
    TOPIC("TopicNameStrategy"),
    RECORD("RecordNameStrategy"),
    TOPIC_RECORD("TopicRecordNameStrategy");

    private static final String CONFLUENT_PACKAGE = "io.confluent.kafka.serializers.subject.";

    private final String configName;

    SubjectNameStrategy(String configName) {
        this.configName = configName;
    }

    /** The name used in configs, as Confluent's class simple name. */
    public String configName() {
        return configName;
    }

    /**
     * The subject for a key ({@code isKey}) or value of {@code topic} with this schema.
     *
     * @throws IllegalArgumentException when the strategy needs a record name and the schema has
     *     none (not a named Avro type, or not parseable)
     */
    public String subject(String topic, boolean isKey, RegisteredSchema schema) {
        return switch (this) {
            case TOPIC -> topic + (isKey ? "-key" : "-value");
            case RECORD -> recordName(schema);
            case TOPIC_RECORD -> topic + "-" + recordName(schema);
        };
    }

    /** The full name of the named Avro type the schema defines. */
    static String recordName(RegisteredSchema schema) {
        if (!schema.isAvro()) {
            throw new IllegalArgumentException("a " + schema.type() + " schema has no Avro record name");
        }
        Schema parsed;
        try {
            parsed = new Schema.Parser().setValidateDefaults(false).parse(schema.schema());
        } catch (SchemaParseException e) {
            throw new IllegalArgumentException("the Avro schema does not parse: " + e.getMessage(), e);
        }
        return switch (parsed.getType()) {
            case RECORD, ENUM, FIXED -> parsed.getFullName();
            default -> throw new IllegalArgumentException("an Avro " + parsed.getType().getName()
                    + " schema has no record name");
        };
    }

    /**
     * The strategy a config value names: {@code TopicNameStrategy}, {@code RecordNameStrategy},
     * {@code TopicRecordNameStrategy}, case-insensitive, optionally with Confluent's package
     * ({@code io.confluent.kafka.serializers.subject.}) so serializer configs can be copied.
     */
    public static SubjectNameStrategy parse(String value) {
        String name = value == null ? "" : value.trim();
        if (name.startsWith(CONFLUENT_PACKAGE)) {
            name = name.substring(CONFLUENT_PACKAGE.length());
        }
        for (SubjectNameStrategy strategy : values()) {
            if (strategy.configName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return strategy;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not a subject name strategy: use one of "
                + names() + " (optionally with the package " + CONFLUENT_PACKAGE + ")");
    }

    static String names() {
        return Arrays.stream(values()).map(SubjectNameStrategy::configName).collect(Collectors.joining(", "));
    }
}
