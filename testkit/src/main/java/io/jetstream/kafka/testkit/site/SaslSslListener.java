package io.jetstream.kafka.testkit.site;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A SASL_SSL listener of a test broker: SASL/PLAIN over TLS. The broker's certificate and key are
 * in a PKCS12 key store, the CA that signs them in a PKCS12 trust store for clients, and the broker
 * accepts the given users. The caller makes the files (certificates generated at test time), so the
 * kit needs no PKI library.
 *
 * <p>A site built with {@link Site.Builder#saslSsl} keeps its PLAINTEXT listener for the tests' own
 * producers, verifiers and admin calls, adds this listener, and points its Connect worker (and
 * therefore the worker's producers, consumers and admin clients) at it; connectors deployed there
 * reach it with {@link #clientProperties}. A client bootstrapped on this listener is handed only
 * this listener's address in metadata, so it never falls back to PLAINTEXT.
 *
 * @param storePassword password of both stores and of the key (test material, not a secret)
 * @param users         user name to password, for SASL/PLAIN
 */
public record SaslSslListener(Path keyStore, Path trustStore, String storePassword, Map<String, String> users) {

    /** The listener's name in the broker's configuration. */
    public static final String NAME = "SECURE";

    public SaslSslListener {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(trustStore, "trustStore");
        Objects.requireNonNull(storePassword, "storePassword");
        users = Map.copyOf(users);
    }

    /** The broker's settings of this listener (its address is added by the broker). */
    Map<String, String> brokerProperties() {
        String prefix = "listener.name." + NAME.toLowerCase() + ".";
        Map<String, String> p = new LinkedHashMap<>();
        p.put(prefix + "ssl.keystore.location", keyStore.toString());
        p.put(prefix + "ssl.keystore.password", storePassword);
        p.put(prefix + "ssl.keystore.type", "PKCS12");
        p.put(prefix + "ssl.key.password", storePassword);
        p.put(prefix + "sasl.enabled.mechanisms", "PLAIN");
        StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
        users.forEach((user, password) -> jaas.append(" user_").append(user).append("=\"").append(password)
                .append('"'));
        p.put(prefix + "plain.sasl.jaas.config", jaas.append(';').toString());
        return p;
    }

    /** The JAAS configuration a client logs in with as {@code user}. */
    public String jaasConfig(String user) {
        String password = users.get(user);
        if (password == null) {
            throw new IllegalArgumentException("no user " + user + " on this listener; users: " + users.keySet());
        }
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }

    /** Kafka client settings that reach this listener as {@code user} (bootstrap servers not included). */
    public Map<String, String> clientProperties(String user) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", jaasConfig(user));
        p.put("ssl.truststore.location", trustStore.toString());
        p.put("ssl.truststore.password", storePassword);
        p.put("ssl.truststore.type", "PKCS12");
        return p;
    }

    @Override
    public String toString() {
        return "SASL_SSL listener (PLAIN, users " + users.keySet() + ", key store " + keyStore + ")";
    }
}
