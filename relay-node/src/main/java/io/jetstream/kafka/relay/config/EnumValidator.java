package io.jetstream.kafka.relay.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** One of an enum's constants, written in lower case in the file and matched case-insensitively. */
public final class EnumValidator<E extends Enum<E>> implements ConfigDef.Validator {

    private final Class<E> type;

    private EnumValidator(Class<E> type) {
        this.type = type;
    }

    public static <E extends Enum<E>> EnumValidator<E> of(Class<E> type) {
        return new EnumValidator<>(type);
    }

    /** The constant a validated value names. */
    static <E extends Enum<E>> E parse(Class<E> type, String value) {
        return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value instanceof String text) {
            try {
                parse(type, text);
                return;
            } catch (IllegalArgumentException e) {
                // fall through to the message that lists the valid values
            }
        }
        throw new ConfigException(name, value, "must be " + this);
    }

    @Override
    public String toString() {
        return Arrays.stream(type.getEnumConstants())
                .map(c -> c.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", ", "one of [", "]"));
    }
}
