package io.jetstream.kafka.connect.common.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The connection and security settings of the Kafka clients a connector creates itself (Admin
 * clients, read-back consumers), given under a cluster prefix the way MirrorMaker 2 takes them:
 * {@code source.cluster.security.protocol}, {@code source.cluster.sasl.jaas.config},
 * {@code target.cluster.ssl.truststore.location}, ...
 *
 * <p>As in MirrorMaker 2, only Kafka's client connection and security settings pass through the
 * prefix: {@code bootstrap.servers}, {@code security.protocol} and every {@code ssl.*} and
 * {@code sasl.*} key Kafka's clients define. The usual ones are declared in the connector's
 * ConfigDef (documented, validated, secrets typed {@code PASSWORD} so Connect and the connector
 * never print them); the rest are validated here with Kafka's own definitions, each error on its
 * prefixed key. Secrets may come from Connect config providers ({@code ${file:...}}): Connect
 * resolves them before the connector sees its configuration and stores task configurations with
 * the placeholders, not the values.
 */
public final class ClusterClientConfigs {

    public static final String SOURCE_PREFIX = "source.cluster.";
    public static final String TARGET_PREFIX = "target.cluster.";

    static final String BOOTSTRAP = CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG;
    static final String PROTOCOL = CommonClientConfigs.SECURITY_PROTOCOL_CONFIG;
    private static final String JAAS_FILE_PROPERTY = "java.security.auth.login.config";

    /** Kafka's own definitions of the client security settings (MirrorMaker 2's CLIENT_CONFIG_DEF less bootstrap). */
    static final ConfigDef KAFKA_CLIENT_SECURITY = new ConfigDef()
            .define(PROTOCOL, Type.STRING, CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL,
                    new SecurityProtocolValidator(),
                    Importance.MEDIUM, CommonClientConfigs.SECURITY_PROTOCOL_DOC)
            .withClientSslSupport()
            .withClientSaslSupport();

    /** Declared (documented) keys; documentation with {cluster} and {prefix} placeholders. */
    private record Declared(String name, Importance importance, Width width, String display, String doc) {
    }

    private static final List<Declared> DECLARED = List.of(
            new Declared(PROTOCOL, Importance.HIGH, Width.SHORT, "Security protocol",
                    "Protocol this connector's own Kafka clients (Admin clients, read-back consumers) use to reach "
                            + "{cluster}: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. The other {prefix}ssl.* and "
                            + "{prefix}sasl.* keys complete it; any Kafka client ssl.* or sasl.* setting is "
                            + "accepted under this prefix."),
            new Declared(SaslConfigs.SASL_MECHANISM, Importance.MEDIUM, Width.SHORT, "SASL mechanism",
                    "SASL mechanism towards {cluster}, e.g. PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or "
                            + "GSSAPI. Used with SASL_PLAINTEXT and SASL_SSL."),
            new Declared(SaslConfigs.SASL_JAAS_CONFIG, Importance.MEDIUM, Width.LONG, "SASL JAAS config",
                    "JAAS login configuration of the connector's clients towards {cluster}, e.g. "
                            + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"...\" "
                            + "password=\"...\"; Secret: use a Connect config provider (${file:...}). Needed with "
                            + "SASL unless the worker JVM has java.security.auth.login.config."),
            new Declared(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, Importance.MEDIUM, Width.LONG,
                    "SSL trust store location",
                    "Trust store with the CAs that sign the brokers' certificates of {cluster} (SSL and SASL_SSL); "
                            + "unset means the JVM's default CAs. A file readable on every worker."),
            new Declared(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, Importance.MEDIUM, Width.MEDIUM,
                    "SSL trust store password", "Password of the trust store towards {cluster} (secret)."),
            new Declared(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, Importance.LOW, Width.SHORT,
                    "SSL trust store type", "Format of the trust store towards {cluster}: JKS, PKCS12 or PEM."),
            new Declared(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, Importance.MEDIUM, Width.LONG,
                    "SSL key store location",
                    "Key store with the connector's client certificate, for brokers of {cluster} that require TLS "
                            + "client authentication (mutual TLS). A file readable on every worker."),
            new Declared(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, Importance.MEDIUM, Width.MEDIUM,
                    "SSL key store password", "Password of the key store towards {cluster} (secret)."),
            new Declared(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, Importance.LOW, Width.SHORT,
                    "SSL key store type", "Format of the key store towards {cluster}: JKS, PKCS12 or PEM."),
            new Declared(SslConfigs.SSL_KEY_PASSWORD_CONFIG, Importance.MEDIUM, Width.MEDIUM,
                    "SSL key password", "Password of the private key in the key store towards {cluster} (secret)."),
            new Declared(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, Importance.LOW, Width.SHORT,
                    "SSL endpoint identification",
                    "'https' checks that the certificate of each broker of {cluster} names the host the client "
                            + "connected to; empty turns the check off."));

    /** Files whose readability validation checks (SSL protocols only). */
    private static final List<String> FILES = List.of(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
            SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG);

    private ClusterClientConfigs() {
    }

    /** One of Kafka's security protocols, in any case (as Kafka's clients accept them); a stable description. */
    static final class SecurityProtocolValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String protocol = value == null ? "" : value.toString().trim().toUpperCase(Locale.ROOT);
            boolean known = Arrays.stream(SecurityProtocol.values()).anyMatch(p -> p.name.equals(protocol));
            if (!known) {
                throw new ConfigException(name, value, "must be one of " + this);
            }
        }

        @Override
        public String toString() {
            return Arrays.stream(SecurityProtocol.values()).map(p -> p.name).collect(Collectors.joining(", "))
                    + " (any case)";
        }
    }

    /**
     * Names of the declared keys (without prefix): the usual settings, then every other secret Kafka's
     * clients define, so that no secret reaches Connect's validation answer or a log in clear.
     */
    static Set<String> declaredNames() {
        Set<String> names = new LinkedHashSet<>();
        DECLARED.forEach(d -> names.add(d.name()));
        KAFKA_CLIENT_SECURITY.configKeys().values().stream()
                .filter(k -> k.type == Type.PASSWORD)
                .forEach(k -> names.add(k.name));
        return names;
    }

    /**
     * Adds the security keys of one cluster to {@code def}, each under {@code prefix}, in
     * {@code group}, with Kafka's defaults and validators.
     *
     * @param cluster how the documentation names the cluster, e.g. "the source cluster"
     */
    public static ConfigDef define(ConfigDef def, String prefix, String group, String cluster) {
        int order = 0;
        for (String name : declaredNames()) {
            ConfigDef.ConfigKey kafka = KAFKA_CLIENT_SECURITY.configKeys().get(name);
            Declared declared = DECLARED.stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
            String doc = declared != null
                    ? declared.doc().replace("{prefix}", prefix).replace("{cluster}", cluster)
                    : "Kafka client setting " + name + " towards " + cluster + " (secret; see Kafka's client "
                            + "configuration). Use a Connect config provider (${file:...}) rather than plain text.";
            def.define(prefix + name, kafka.type, kafka.defaultValue, kafka.validator,
                    declared == null ? Importance.LOW : declared.importance(), doc, group, ++order,
                    declared == null ? Width.MEDIUM : declared.width(),
                    declared == null ? name : declared.display());
        }
        return def;
    }

    /**
     * Errors in the keys under {@code prefix} that the ConfigDef cannot see, each keyed by the
     * prefixed key: pass-through keys with invalid values, misspelt {@code ssl.}/{@code sasl.} keys,
     * security keys set while the protocol is PLAINTEXT, unreadable key and trust stores, a JAAS
     * configuration that does not parse or is missing. Raw values are used (the typed config may not
     * parse); no message quotes a secret.
     */
    public static Map<String, String> errors(Map<String, String> props, String prefix) {
        Map<String, String> errors = new LinkedHashMap<>();
        Set<String> declared = declaredNames();
        Set<String> securityKeys = new TreeSet<>();
        props.forEach((key, value) -> {
            if (!key.startsWith(prefix)) {
                return;
            }
            String name = key.substring(prefix.length());
            ConfigDef.ConfigKey kafka = KAFKA_CLIENT_SECURITY.configKeys().get(name);
            if (kafka == null) {
                if (name.startsWith("ssl.") || name.startsWith("sasl.")) {
                    errors.put(key, "is not a setting of Kafka's clients (misspelt?); the connector's clients "
                            + "towards this cluster would not use it");
                }
                return;
            }
            if (!PROTOCOL.equals(name) && value != null && !value.isBlank()) {
                securityKeys.add(key);
            }
            if (declared.contains(name)) {
                return; // the connector's ConfigDef validates it
            }
            try {
                Object parsed = ConfigDef.parseType(key, value, kafka.type);
                if (kafka.validator != null) {
                    kafka.validator.ensureValid(key, parsed);
                }
            } catch (ConfigException e) {
                errors.put(key, reason(e, key));
            }
        });
        String protocol = Objects.toString(props.get(prefix + PROTOCOL), CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL)
                .trim().toUpperCase(Locale.ROOT);
        boolean ssl = protocol.equals("SSL") || protocol.equals("SASL_SSL");
        boolean sasl = protocol.startsWith("SASL_");
        if (protocol.equals("PLAINTEXT") && !securityKeys.isEmpty()) {
            errors.putIfAbsent(prefix + PROTOCOL, "is PLAINTEXT (the default) although " + securityKeys
                    + " are set: set SSL, SASL_PLAINTEXT or SASL_SSL, or remove them");
        }
        if (ssl) {
            for (String name : FILES) {
                String file = Objects.toString(props.get(prefix + name), "");
                if (!file.isBlank() && !Files.isReadable(Path.of(file.trim()))) {
                    errors.putIfAbsent(prefix + name, "'" + file.trim() + "' is not a readable file on this worker");
                }
            }
        }
        String jaasKey = prefix + SaslConfigs.SASL_JAAS_CONFIG;
        String jaas = Objects.toString(props.get(jaasKey), "");
        if (sasl && jaas.isBlank() && System.getProperty(JAAS_FILE_PROPERTY) == null) {
            errors.putIfAbsent(jaasKey, "must be set when " + prefix + PROTOCOL + " is " + protocol
                    + " (the worker JVM has no " + JAAS_FILE_PROPERTY + " to fall back on)");
        } else if (sasl && !jaas.isBlank()) {
            try {
                JaasContext.loadClientContext(Map.of(SaslConfigs.SASL_JAAS_CONFIG, new Password(jaas)));
            } catch (RuntimeException e) {
                // Kafka's parser names keys and structure, never option values.
                errors.putIfAbsent(jaasKey, "is not a valid JAAS configuration (" + e.getMessage() + "); expected "
                        + "'<LoginModule class> required <option>=\"<value>\" ...;'");
            }
        }
        return errors;
    }

    /** Kafka's message without its "Invalid value X for configuration K: " head (the key carries the error). */
    private static String reason(ConfigException e, String key) {
        String message = e.getMessage();
        String head = " for configuration " + key + ": ";
        int at = message.indexOf(head);
        return message.startsWith("Invalid value ") && at > 0 ? message.substring(at + head.length()) : message;
    }

    /**
     * The client settings of the cluster: {@code <prefix>bootstrap.servers}, and every key under
     * {@code prefix} that is one of Kafka's client security settings, secrets as {@link Password}.
     */
    public static ClusterClients clients(AbstractConfig config, String prefix, String cluster) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(BOOTSTRAP, String.join(",", config.getList(prefix + BOOTSTRAP)));
        Set<String> ignored = new LinkedHashSet<>();
        config.originalsWithPrefix(prefix).forEach((name, value) -> {
            ConfigDef.ConfigKey kafka = KAFKA_CLIENT_SECURITY.configKeys().get(name);
            if (kafka != null) {
                if (value != null) {
                    properties.put(name, kafka.type == Type.PASSWORD && !(value instanceof Password)
                            ? new Password(value.toString()) : value);
                }
            } else if (!config.values().containsKey(prefix + name)) {
                ignored.add(prefix + name);
            }
        });
        return new ClusterClients(cluster, properties, ignored);
    }
}
