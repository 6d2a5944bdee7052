package io.jetstream.kafka.connect.common.config;

import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A cluster alias names a site in topic names ({@code <alias>.<topic>}) and in routes, so it must be
 * a non-empty run of letters, digits, '_' and '-' (no '.', which separates alias and topic).
 */
public final class ClusterAliasValidator implements ConfigDef.Validator {

    private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null || !ALIAS.matcher((String) value).matches()) {
            throw new ConfigException(name, value,
                    "must be 1 to 64 letters, digits, '_' or '-' (it prefixes topic names, so no '.')");
        }
    }

    @Override
    public String toString() {
        return "1-64 of [A-Za-z0-9_-]";
    }
}
