package io.jetstream.kafka.schema;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The schema translation keys, declared once here so both connectors spell, validate and document
 * them alike: {@value #ENABLED}, the registry client's {@code schema.registry.*} keys, and on the
 * destination the subject name strategies. Secrets are {@code PASSWORD}s (hidden in logs and errors).
 */
public final class SchemaRegistryConfigs {

    public static final String GROUP = "Schema translation";

    public static final String ENABLED = "schema.translation.enabled";
    public static final String URL = "schema.registry.url";
    public static final String BASIC_AUTH_USER_INFO = "schema.registry.basic.auth.user.info";
    public static final String BEARER_TOKEN = "schema.registry.bearer.auth.token";
    public static final String TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
    public static final String TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
    public static final String TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
    public static final String KEYSTORE_LOCATION = "schema.registry.ssl.keystore.location";
    public static final String KEYSTORE_PASSWORD = "schema.registry.ssl.keystore.password";
    public static final String KEYSTORE_TYPE = "schema.registry.ssl.keystore.type";
    public static final String CONNECT_TIMEOUT_MS = "schema.registry.connect.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";
    public static final String CACHE_SIZE = "schema.registry.cache.size";
    public static final String KEY_STRATEGY = "schema.key.subject.name.strategy";
    public static final String VALUE_STRATEGY = "schema.value.subject.name.strategy";
    public static final String HOLD_TIMEOUT_MS = "schema.translation.hold.timeout.ms";

    private SchemaRegistryConfigs() {
    }

    /**
     * Adds the keys both connectors have to {@code def}; {@code roleDoc} says what this connector
     * does with the registry.
     */
    public static ConfigDef define(ConfigDef def, String enabledDoc, String urlDoc) {
        return def
                .define(ENABLED, Type.BOOLEAN, false, Importance.HIGH, "Translate the schema ids of records in the "
                        + "Confluent Schema Registry wire format (0x00, a 4-byte id, then the data) between the source "
                        + "site's registry and the destination site's. Turn it on on both connectors. " + enabledDoc
                        + " See docs/schemas.md.", GROUP, 1, Width.SHORT, "Schema translation")
                .define(URL, Type.LIST, "", new UrlListValidator(), Importance.HIGH, "Base URLs of this site's "
                        + "schema registry, Confluent REST API (for Apicurio Registry: .../apis/ccompat/v7); the first "
                        + "that answers serves each call. Required with " + ENABLED + ". " + urlDoc,
                        GROUP, 2, Width.LONG, "Schema registry URLs")
                .define(BASIC_AUTH_USER_INFO, Type.PASSWORD, null, Importance.MEDIUM, "user:password for HTTP basic "
                        + "authentication to the registry. Empty: none. Excludes " + BEARER_TOKEN + ".",
                        GROUP, 3, Width.MEDIUM, "Registry basic auth user info")
                .define(BEARER_TOKEN, Type.PASSWORD, null, Importance.MEDIUM, "A bearer token sent to the registry "
                        + "(Authorization: Bearer). Empty: none. Excludes " + BASIC_AUTH_USER_INFO + ".",
                        GROUP, 4, Width.MEDIUM, "Registry bearer token")
                .define(TRUSTSTORE_LOCATION, Type.STRING, null, new ReadableFile(), Importance.MEDIUM, "Trust store "
                        + "with the certificates that sign the registry's (https URLs). Empty: the JVM's default "
                        + "trust.", GROUP, 5, Width.LONG, "Registry trust store")
                .define(TRUSTSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM, "Password of the trust store.",
                        GROUP, 6, Width.MEDIUM, "Registry trust store password")
                .define(TRUSTSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.ValidString.in("PKCS12", "JKS"),
                        Importance.LOW, "Type of the trust store.", GROUP, 7, Width.SHORT, "Registry trust store type")
                .define(KEYSTORE_LOCATION, Type.STRING, null, new ReadableFile(), Importance.MEDIUM, "Key store with "
                        + "this connector's certificate and key, for a registry that authenticates clients by TLS. "
                        + "Empty: no client certificate.", GROUP, 8, Width.LONG, "Registry key store")
                .define(KEYSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM, "Password of the key store and of "
                        + "its key.", GROUP, 9, Width.MEDIUM, "Registry key store password")
                .define(KEYSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.ValidString.in("PKCS12", "JKS"),
                        Importance.LOW, "Type of the key store.", GROUP, 10, Width.SHORT, "Registry key store type")
                .define(CONNECT_TIMEOUT_MS, Type.LONG, 5_000L, ConfigDef.Range.between(100, 300_000), Importance.LOW,
                        "Longest wait for a connection to the registry.", GROUP, 11, Width.SHORT,
                        "Registry connect timeout (ms)")
                .define(REQUEST_TIMEOUT_MS, Type.LONG, 10_000L, ConfigDef.Range.between(100, 300_000),
                        Importance.LOW, "Longest wait for one answer of the registry. A registry that does not "
                                + "answer in time counts as unavailable: retried, nothing sent or written meanwhile.",
                        GROUP, 12, Width.SHORT, "Registry request timeout (ms)")
                .define(CACHE_SIZE, Type.INT, 1_000, ConfigDef.Range.between(10, 1_000_000), Importance.LOW,
                        "Most schema ids (and, at the destination, id translations) a task remembers; each is "
                                + "asked of the registry once while remembered.",
                        GROUP, 13, Width.SHORT, "Registry cache size");
    }

    /** Adds the destination's subject name strategies. */
    public static ConfigDef defineStrategies(ConfigDef def) {
        String doc = " subjects at the destination registry: TopicNameStrategy (<destination topic>-%s), "
                + "RecordNameStrategy (the Avro record's full name) or TopicRecordNameStrategy (<destination "
                + "topic>-<full name>), as Confluent's serializers name them (their class names are accepted too). "
                + "Consumers' deserializers find schemas by id, whatever the subject.";
        return def
                .define(KEY_STRATEGY, Type.STRING, SubjectNameStrategy.TOPIC.configName(), new StrategyValidator(),
                        Importance.MEDIUM, "How key schemas are named as" + doc.formatted("key"), GROUP, 20,
                        Width.MEDIUM, "Key subject name strategy")
                .define(VALUE_STRATEGY, Type.STRING, SubjectNameStrategy.TOPIC.configName(), new StrategyValidator(),
                        Importance.MEDIUM, "How value schemas are named as" + doc.formatted("value"), GROUP, 21,
                        Width.MEDIUM, "Value subject name strategy")
                .define(HOLD_TIMEOUT_MS, Type.LONG, 600_000L, ConfigDef.Range.between(-1, 7L * 24 * 3_600_000),
                        Importance.MEDIUM, "How long a partition may stay held by schema translation (the "
                                + "registry unreachable, a schema it refuses as incompatible, a schema that never "
                                + "arrives because the source does not translate) before the task fails with the "
                                + "reason, so that the task status shows it. Meanwhile the batches are refused "
                                + "retriably and come again; nothing is written with an untranslated id either way, "
                                + "and the source keeps the records. -1: never fail (watch schema-held-partitions).",
                        GROUP, 22, Width.SHORT, "Schema hold timeout (ms)");
    }

    /** The hold timeout, or empty for never. */
    public static java.util.Optional<Duration> holdTimeout(AbstractConfig config) {
        long millis = config.getLong(HOLD_TIMEOUT_MS);
        return millis < 0 ? java.util.Optional.empty() : java.util.Optional.of(Duration.ofMillis(millis));
    }

    /** Errors that involve several keys, keyed by the key they concern (raw values). */
    public static Map<String, String> errors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>();
        boolean enabled = "true".equalsIgnoreCase(String.valueOf(props.get(ENABLED)).trim());
        String urls = props.get(URL);
        if (enabled && (urls == null || urls.isBlank())) {
            errors.put(URL, "is required with " + ENABLED + "=true: the base URL of this site's schema registry");
        }
        if (isSet(props.get(BASIC_AUTH_USER_INFO)) && isSet(props.get(BEARER_TOKEN))) {
            errors.put(BEARER_TOKEN, "cannot be used together with " + BASIC_AUTH_USER_INFO + ": choose one way "
                    + "to authenticate");
        }
        String userInfo = props.get(BASIC_AUTH_USER_INFO);
        if (isSet(userInfo) && !userInfo.contains(":")) {
            errors.put(BASIC_AUTH_USER_INFO, "must be user:password (no ':' found)");
        }
        return errors;
    }

    private static boolean isSet(String value) {
        return value != null && !value.isEmpty();
    }

    public static boolean enabled(AbstractConfig config) {
        return config.getBoolean(ENABLED);
    }

    public static SubjectNameStrategy keyStrategy(AbstractConfig config) {
        return SubjectNameStrategy.parse(config.getString(KEY_STRATEGY));
    }

    public static SubjectNameStrategy valueStrategy(AbstractConfig config) {
        return SubjectNameStrategy.parse(config.getString(VALUE_STRATEGY));
    }

    public static int cacheSize(AbstractConfig config) {
        return config.getInt(CACHE_SIZE);
    }

    /** The client settings, with the TLS context built from the stores. */
    public static RegistryClientSettings settings(AbstractConfig config) {
        List<URI> urls = new ArrayList<>();
        for (String url : config.getList(URL)) {
            urls.add(URI.create(url.trim()));
        }
        return new RegistryClientSettings(urls, secret(config, BASIC_AUTH_USER_INFO), secret(config, BEARER_TOKEN),
                sslContext(config), Duration.ofMillis(config.getLong(CONNECT_TIMEOUT_MS)),
                Duration.ofMillis(config.getLong(REQUEST_TIMEOUT_MS)), config.getInt(CACHE_SIZE));
    }

    private static Optional<String> secret(AbstractConfig config, String key) {
        Password password = config.getPassword(key);
        return password == null || password.value() == null || password.value().isEmpty() ? Optional.empty()
                : Optional.of(password.value());
    }

    private static Optional<SSLContext> sslContext(AbstractConfig config) {
        String trustStore = config.getString(TRUSTSTORE_LOCATION);
        String keyStore = config.getString(KEYSTORE_LOCATION);
        if (trustStore == null && keyStore == null) {
            return Optional.empty();
        }
        try {
            TrustManagerFactory trust = null;
            if (trustStore != null) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(load(trustStore, config.getString(TRUSTSTORE_TYPE), secret(config, TRUSTSTORE_PASSWORD)));
            }
            KeyManagerFactory keys = null;
            if (keyStore != null) {
                Optional<String> password = secret(config, KEYSTORE_PASSWORD);
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(load(keyStore, config.getString(KEYSTORE_TYPE), password),
                        password.map(String::toCharArray).orElse(new char[0]));
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(),
                    null);
            return Optional.of(context);
        } catch (GeneralSecurityException | IOException e) {
            throw new ConfigException("Cannot build the TLS context for the schema registry from "
                    + (trustStore != null ? TRUSTSTORE_LOCATION + "=" + trustStore + " " : "")
                    + (keyStore != null ? KEYSTORE_LOCATION + "=" + keyStore : "") + ": " + e.getMessage());
        }
    }

    private static KeyStore load(String location, String type, Optional<String> password)
            throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password.map(String::toCharArray).orElse(null));
        }
        return store;
    }

    /** Each entry an absolute http or https URL. */
    static final class UrlListValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> urls = (List<String>) value;
            if (urls == null) {
                return;
            }
            for (String url : urls) {
                try {
                    URI uri = new URI(url.trim());
                    String scheme = uri.getScheme();
                    if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                        throw new ConfigException(name, value, "'" + url + "' is not an http:// or https:// URL "
                                + "with a host");
                    }
                } catch (URISyntaxException e) {
                    throw new ConfigException(name, value, "'" + url + "' is not a URL: " + e.getMessage());
                }
            }
        }

        @Override
        public String toString() {
            return "http:// or https:// URLs, comma-separated";
        }
    }

    /** Empty, or a file that exists and can be read. */
    static final class ReadableFile implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return;
            }
            Path path = Path.of((String) value);
            if (!Files.isReadable(path) || Files.isDirectory(path)) {
                throw new ConfigException(name, value, "is not a readable file");
            }
        }

        @Override
        public String toString() {
            return "a readable file, or empty";
        }
    }

    /** A {@link SubjectNameStrategy} name. */
    static final class StrategyValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                SubjectNameStrategy.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return SubjectNameStrategy.names();
        }
    }
}
