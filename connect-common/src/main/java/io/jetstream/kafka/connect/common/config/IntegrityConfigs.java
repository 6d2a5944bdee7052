package io.jetstream.kafka.connect.common.config;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The end-to-end integrity keys: {@value #KEY} on both connectors, {@value #REQUIRED} on the
 * destination-site connector. Declared once here so both connectors spell, validate and document
 * them alike. The key is a secret: it shows as {@code [hidden]} in logs and errors.
 */
public final class IntegrityConfigs {

    public static final String GROUP = "End-to-end integrity";

    public static final String KEY = "integrity.key";
    public static final String REQUIRED = "integrity.required";

    /** Shortest key, in UTF-8 bytes (HMAC-SHA256's output length). */
    public static final int MIN_KEY_BYTES = 32;

    private static final String KEY_DOC = "Secret shared by the source-site and the destination-site connector of "
            + "this stream, and by no relay: with it the source-site connector signs every batch and topic "
            + "metadata (stream, origin, topic, partition, offsets, prevOffset, record count, codec, sizes and "
            + "the payload bytes; HMAC-SHA256) and the destination-site connector signs every acknowledgement, so "
            + "that no relay on the path, nor anyone holding a relay, sender or subscriber token, can forge or "
            + "alter data, order or acknowledgements unnoticed. Relays route without it: never give it to a "
            + "relay. At least " + MIN_KEY_BYTES + " bytes (UTF-8), e.g. the output of 'openssl rand -base64 "
            + "48'; use a Connect config provider (e.g. ${file:...}) rather than plain text. Set the same key on "
            + "both connectors (on a running stream: see " + REQUIRED + " for the order). Empty: off, nothing "
            + "is signed or checked, and relays are trusted with data and acknowledgements (docs/security.md). "
            + "It does not encrypt: confidentiality is TLS, hop by hop.";

    private IntegrityConfigs() {
    }

    /**
     * Adds {@value #KEY} to {@code def}, in group {@value #GROUP}; {@code roleDoc} says what this
     * connector does with it.
     */
    public static ConfigDef defineKey(ConfigDef def, String roleDoc) {
        return def.define(KEY, Type.PASSWORD, null, new KeyValidator(), Importance.HIGH, KEY_DOC + " " + roleDoc,
                GROUP, 1, Width.LONG, "Integrity key");
    }

    /** Adds {@value #REQUIRED} to {@code def} (destination-site connector). */
    public static ConfigDef defineRequired(ConfigDef def) {
        return def.define(REQUIRED, Type.BOOLEAN, null, Importance.HIGH,
                "Whether batches and topic metadata without a valid MAC are refused (NACK NOT_AUTHORIZED, never "
                        + "written; counted in integrity-failures-total and logged). Empty (the default): true "
                        + "when " + KEY + " is set. false with a key: batches without a MAC are accepted, those "
                        + "with a wrong MAC are still refused; the way to turn integrity on for a running stream "
                        + "without refusals: key the destination with false, then key the source (which from then "
                        + "on commits only on signed answers), then drop the false. true needs "
                        + KEY + ". A batch that crossed a relay built before end-to-end MACs arrives "
                        + "without its MAC and is refused while this is true.",
                GROUP, 2, Width.SHORT, "Integrity required");
    }

    /** The key's bytes, if set. */
    public static Optional<byte[]> key(AbstractConfig config) {
        Password key = config.getPassword(KEY);
        if (key == null || key.value() == null || key.value().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(key.value().getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the destination refuses what is not signed: {@value #REQUIRED}, or by default whether a key is set. */
    public static boolean required(AbstractConfig config) {
        Boolean required = config.getBoolean(REQUIRED);
        return required != null ? required : key(config).isPresent();
    }

    /** {@value #REQUIRED}{@code =true} without a key; raw values, keyed by the key they concern. */
    public static Map<String, String> errors(Map<String, String> props) {
        Map<String, String> errors = new LinkedHashMap<>();
        String required = props.get(REQUIRED);
        String key = props.get(KEY);
        if (required != null && "true".equalsIgnoreCase(required.trim()) && (key == null || key.isEmpty())) {
            errors.put(REQUIRED, "true needs " + KEY + " (the secret both connectors share)");
        }
        return errors;
    }

    /** Empty or at least {@value #MIN_KEY_BYTES} UTF-8 bytes; the error never shows the value. */
    static final class KeyValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return;
            }
            String key = ((Password) value).value();
            if (key == null || key.isEmpty()) {
                return;
            }
            int bytes = key.getBytes(StandardCharsets.UTF_8).length;
            if (bytes < MIN_KEY_BYTES) {
                throw new ConfigException(name, value, "must be at least " + MIN_KEY_BYTES + " bytes (UTF-8), not "
                        + bytes + ": a short key can be guessed; use e.g. 'openssl rand -base64 48'");
            }
        }

        @Override
        public String toString() {
            return "empty (off) or a secret of at least " + MIN_KEY_BYTES + " bytes";
        }
    }
}
