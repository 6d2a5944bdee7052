package io.jetstream.kafka.connect.common.config;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Validates that a STRING is a Java regular expression. */
public final class RegexValidator implements ConfigDef.Validator {

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null) {
            throw new ConfigException(name, null, "must be a regular expression");
        }
        try {
            Pattern.compile((String) value);
        } catch (PatternSyntaxException e) {
            throw new ConfigException(name, value, "is not a valid regular expression: " + e.getDescription());
        }
    }

    @Override
    public String toString() {
        return "a Java regular expression";
    }
}
