package io.jetstream.kafka.relay.config;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.types.Password;

/** Converts typed values (numbers, lists, passwords) to the strings a properties file would hold. */
final class FlatValues {

    private FlatValues() {
    }

    static Map<String, String> toStrings(Map<String, ?> props) {
        Map<String, String> strings = new LinkedHashMap<>();
        props.forEach((key, value) -> strings.put(key, toString(value)));
        return strings;
    }

    private static String toString(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Password password) {
            return password.value();
        }
        if (value instanceof Collection<?> items) {
            return items.stream().map(FlatValues::toString).collect(Collectors.joining(","));
        }
        return value.toString();
    }
}
