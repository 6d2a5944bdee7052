package io.jetstream.kafka.relay.config;

import java.util.Objects;

/**
 * One thing wrong with a relay configuration.
 *
 * @param key     the key as the user wrote it (flattened: {@code listener.port})
 * @param message a sentence that names the key, the value (secrets hidden) and the rule broken
 */
public record ConfigProblem(String key, String message) {

    public ConfigProblem {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return message;
    }
}
