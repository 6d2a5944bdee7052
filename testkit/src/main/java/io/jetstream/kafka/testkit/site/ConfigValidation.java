package io.jetstream.kafka.testkit.site;

import java.util.List;
import java.util.Map;

/**
 * The result of {@code PUT /connector-plugins/{class}/config/validate}: the error count and, for
 * each key that has errors, the messages Connect attached to that key.
 */
public record ConfigValidation(int errorCount, Map<String, List<String>> errorsByKey) {

    public ConfigValidation {
        errorsByKey = Map.copyOf(errorsByKey);
    }

    public List<String> errorsFor(String key) {
        return errorsByKey.getOrDefault(key, List.of());
    }
}
