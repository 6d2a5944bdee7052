package io.jetstream.kafka.relay.config;

import io.jetstream.kafka.core.protocol.PeerRole;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.List;
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
 * <p>With mutual TLS a role can also be bound to certificate identities
 * ({@code streams.<id>.<role>.identities}): the peer must then present the role's token over a
 * connection whose verified certificate carries one of them.
 *
 * @param id             stream id, as listed in {@code streams}
 * @param token          {@code streams.<id>.token}, the shared token; prints as {@code [hidden]}
 * @param roleTokens     tokens of the roles that have their own (missing roles use {@code token})
 * @param roleIdentities certificate identities of the roles bound to some (missing roles: any certificate)
 */
public record StreamSpec(String id, Password token, Map<PeerRole, Password> roleTokens,
                         Map<PeerRole, List<PeerIdentity>> roleIdentities) {

    public StreamSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(token, "token");
        roleTokens = roleTokens.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(roleTokens));
        Map<PeerRole, List<PeerIdentity>> bound = new EnumMap<>(PeerRole.class);
        roleIdentities.forEach((role, identities) -> {
            if (!identities.isEmpty()) {
                bound.put(role, List.copyOf(identities));
            }
        });
        roleIdentities = Map.copyOf(bound);
    }

    /** A stream whose roles all share one token. */
    public StreamSpec(String id, Password token) {
        this(id, token, Map.of(), Map.of());
    }

    /** A stream with tokens per role and no certificate binding. */
    public StreamSpec(String id, Password token, Map<PeerRole, Password> roleTokens) {
        this(id, token, roleTokens, Map.of());
    }

    /** Whether {@code role} is bound to certificate identities. */
    public boolean bindsCertificates(PeerRole role) {
        return roleIdentities.containsKey(role);
    }

    /**
     * Whether a peer that proved {@code certificate} (null: none) may take {@code role}: always
     * when the role is not bound to identities, else only when the certificate carries one.
     */
    public boolean certificateAllowed(PeerRole role, X509Certificate certificate) {
        List<PeerIdentity> identities = roleIdentities.get(role);
        if (identities == null) {
            return true;
        }
        return certificate != null && identities.stream().anyMatch(identity -> identity.matches(certificate));
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
