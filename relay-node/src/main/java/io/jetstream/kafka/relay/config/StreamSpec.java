package io.jetstream.kafka.relay.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;

import org.apache.kafka.common.config.types.Password;

/**
 * A stream this relay accepts, with the secret its peers present at handshake.
 *
 * @param id    stream id, as listed in {@code streams}
 * @param token {@code streams.<id>.token}; prints as {@code [hidden]}
 */
public record StreamSpec(String id, Password token) {

    public StreamSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(token, "token");
    }

    /** Compares a presented token with this stream's in constant time (no timing oracle). */
    public boolean tokenMatches(String presented) {
        if (presented == null) {
            return false;
        }
        return MessageDigest.isEqual(token.value().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }
}
