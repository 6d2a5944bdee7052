package io.jetstream.kafka.connect.common.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

/**
 * Checks that involve several keys, reported on the key they concern so that Connect's
 * {@code PUT /connector-plugins/{class}/config/validate} shows each error next to the right field.
 */
public final class CrossFieldValidation {

    private CrossFieldValidation() {
    }

    /** Adds each error to the {@link ConfigValue} of its key (creating the entry if missing). */
    public static void attach(Config config, Map<String, String> errors) {
        errors.forEach((key, message) -> {
            ConfigValue value = config.configValues().stream().filter(v -> v.name().equals(key)).findFirst()
                    .orElse(null);
            if (value == null) {
                value = new ConfigValue(key);
                config.configValues().add(value);
            }
            if (!value.errorMessages().contains(message)) {
                value.addErrorMessage(message);
            }
        });
    }

    /**
     * Throws the first of {@code errors} as a {@link ConfigException} naming its key and value; the
     * value of a secret ({@code PASSWORD} in {@code def}) shows as {@code [hidden]}.
     */
    public static void throwFirst(ConfigDef def, Map<String, String> props, Map<String, String> errors) {
        errors.entrySet().stream().findFirst().ifPresent(error -> {
            String key = error.getKey();
            ConfigDef.ConfigKey declared = def.configKeys().get(key);
            boolean secret = declared != null && declared.type == ConfigDef.Type.PASSWORD;
            throw new ConfigException(key, secret ? "[hidden]" : props.get(key), error.getValue());
        });
    }

    /**
     * The checks shared by both connectors: distinct aliases, TLS key and certificate set together,
     * TLS files readable. Raw values are used, since the typed config may not even parse.
     */
    public static Map<String, String> commonErrors(Map<String, String> props, String sourceAliasKey,
                                                   String targetAliasKey) {
        Map<String, String> errors = new LinkedHashMap<>();
        String source = props.get(sourceAliasKey);
        String target = props.get(targetAliasKey);
        if (source != null && source.equals(target)) {
            errors.put(targetAliasKey, "must differ from " + sourceAliasKey + " ('" + source + "')");
        }
        boolean tls = !"false".equalsIgnoreCase(props.getOrDefault(RelayClientConfigs.TLS_ENABLED, "true").trim());
        String cert = props.getOrDefault(RelayClientConfigs.TLS_CERT_FILE, "");
        String key = props.getOrDefault(RelayClientConfigs.TLS_KEY_FILE, "");
        if (tls && cert.isBlank() != key.isBlank()) {
            String missing = cert.isBlank() ? RelayClientConfigs.TLS_CERT_FILE : RelayClientConfigs.TLS_KEY_FILE;
            String present = cert.isBlank() ? RelayClientConfigs.TLS_KEY_FILE : RelayClientConfigs.TLS_CERT_FILE;
            errors.put(missing, "must be set together with " + present);
        }
        if (tls) {
            for (String fileKey : new String[] {RelayClientConfigs.TLS_CA_FILE, RelayClientConfigs.TLS_CERT_FILE,
                    RelayClientConfigs.TLS_KEY_FILE}) {
                String file = props.getOrDefault(fileKey, "");
                if (!file.isBlank() && !Files.isReadable(Path.of(file))) {
                    errors.put(fileKey, "'" + file + "' is not a readable file on this worker");
                }
            }
        }
        return errors;
    }
}
