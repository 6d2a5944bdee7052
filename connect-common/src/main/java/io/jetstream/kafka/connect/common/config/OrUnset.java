package io.jetstream.kafka.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;

/**
 * Accepts no value (the key unset: the behaviour its documentation gives for that), and otherwise what
 * {@code inner} accepts. Shown in the config reference as {@code inner} is.
 */
public final class OrUnset implements ConfigDef.Validator {

    private final ConfigDef.Validator inner;

    public OrUnset(ConfigDef.Validator inner) {
        this.inner = inner;
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value != null) {
            inner.ensureValid(name, value);
        }
    }

    @Override
    public String toString() {
        return inner.toString();
    }
}
