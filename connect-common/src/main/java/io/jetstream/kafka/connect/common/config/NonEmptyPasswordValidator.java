package io.jetstream.kafka.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** A secret that must be set and not blank; the error never shows the value. */
public final class NonEmptyPasswordValidator implements ConfigDef.Validator {

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null || ((Password) value).value() == null || ((Password) value).value().isBlank()) {
            throw new ConfigException(name + " must be set to a non-empty secret");
        }
    }

    @Override
    public String toString() {
        return "non-empty secret";
    }
}
