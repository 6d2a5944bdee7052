package io.jetstream.kafka.relay.config;

import org.apache.kafka.common.config.ConfigDef;

/** A {@link SecretTokenValidator} secret, or nothing (the key is optional). */
final class OptionalSecretTokenValidator implements ConfigDef.Validator {

    static final OptionalSecretTokenValidator INSTANCE = new OptionalSecretTokenValidator();

    private OptionalSecretTokenValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value != null) {
            SecretTokenValidator.INSTANCE.ensureValid(name, value);
        }
    }

    @Override
    public String toString() {
        return "empty, or a " + SecretTokenValidator.INSTANCE;
    }
}
