package io.jetstream.kafka.relay.config;

import io.jetstream.kafka.core.protocol.PeerRole;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.config.types.Password;

/**
 * A stream this relay accepts, with the secrets its peers present at handshake.
 *
 * <p>Least privilege: a role with a token of its own ({@code streams.<id>.sender.token},
 * {@code .subscriber.token}, {@code .relay.token}) is granted only with that token; the stream's
 * shared token then no longer grants it. A role without one is granted with the shared token. So a
 * source task's token cannot subscribe to another task's share, and a destination task's token
 * cannot send batches, once the operator gives each role its own.
 *
 * @param id         stream id, as listed in {@code streams}
 * @param token      {@code streams.<id>.token}, the shared token; prints as {@code [hidden]}
 * @param roleTokens tokens of the roles that have their own (missing roles use {@code token})
 */
public record StreamSpec(String id, Password token, Map<PeerRole, Password> roleTokens) {

    public StreamSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(token, "token");
        roleTokens = roleTokens.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(roleTokens));
    }

    /** A stream whose roles all share one token. */
    public StreamSpec(String id, Password token) {
        this(id, token, Map.of());
    }

    /** The token that grants {@code role}: its own, or the shared one. */
    public Password tokenFor(PeerRole role) {
        return roleTokens.getOrDefault(role, token);
    }

    /** Whether {@code role} has a token of its own. */
    public boolean hasOwnToken(PeerRole role) {
        return roleTokens.containsKey(role);
    }

    /** Compares a token presented for {@code role} with the one that grants it, in constant time. */
    public boolean tokenMatches(PeerRole role, String presented) {
        if (presented == null || role == null) {
            return false;
        }
        return MessageDigest.isEqual(tokenFor(role).value().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }
}
