package io.jetstream.kafka.connect.common.config;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A LIST that must hold at least one non-blank item. */
public final class NonEmptyListValidator implements ConfigDef.Validator {

    private final String what;

    /** @param what what the items are, for the error message ("the source cluster's brokers") */
    public NonEmptyListValidator(String what) {
        this.what = what;
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null || ((List<?>) value).isEmpty()
                || ((List<?>) value).stream().anyMatch(v -> v == null || v.toString().isBlank())) {
            throw new ConfigException(name, value, "must list " + what);
        }
    }

    @Override
    public String toString() {
        return "non-empty list";
    }
}
