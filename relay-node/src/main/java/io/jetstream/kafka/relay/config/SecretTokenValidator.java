package io.jetstream.kafka.relay.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * A shared secret checked at handshake: at least {@value #MIN_LENGTH} characters and no whitespace
 * (which is usually a copy-paste accident). The value never appears in messages: the
 * {@link Password} prints as {@code [hidden]}.
 */
public final class SecretTokenValidator implements ConfigDef.Validator {

    public static final int MIN_LENGTH = 16;
    public static final SecretTokenValidator INSTANCE = new SecretTokenValidator();

    private SecretTokenValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof Password password)) {
            throw new ConfigException(name, value, "must be a secret token");
        }
        String secret = password.value();
        if (secret.length() < MIN_LENGTH) {
            throw new ConfigException(name, value, "must be at least " + MIN_LENGTH + " characters long");
        }
        if (secret.chars().anyMatch(Character::isWhitespace)) {
            throw new ConfigException(name, value, "must not contain whitespace");
        }
    }

    @Override
    public String toString() {
        return "secret of at least " + MIN_LENGTH + " characters";
    }
}
