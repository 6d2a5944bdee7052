package io.jetstream.kafka.relay.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Names that end up inside dotted configuration keys ({@code streams.<id>.token}) and metric
 * labels: letters, digits, {@code _} and {@code -}, at most 64 characters. A dot would make the key
 * {@code streams.a.b.token} ambiguous, so it is refused here rather than misparsed later.
 */
public final class IdentifierValidator implements ConfigDef.Validator {

    static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private static final IdentifierValidator SINGLE = new IdentifierValidator(false);
    private static final IdentifierValidator LIST = new IdentifierValidator(true);

    private final boolean list;

    private IdentifierValidator(boolean list) {
        this.list = list;
    }

    /** For a STRING key holding one identifier. */
    public static IdentifierValidator single() {
        return SINGLE;
    }

    /** For a LIST key holding distinct identifiers (possibly none). */
    public static IdentifierValidator list() {
        return LIST;
    }

    static boolean isIdentifier(String value) {
        return IDENTIFIER.matcher(value).matches();
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!list) {
            requireIdentifier(name, value, value);
            return;
        }
        if (!(value instanceof List<?> items)) {
            throw new ConfigException(name, value, "must be a list of identifiers");
        }
        Set<Object> seen = new HashSet<>();
        for (Object item : items) {
            requireIdentifier(name, value, item);
            if (!seen.add(item)) {
                throw new ConfigException(name, value, "lists '" + item + "' twice");
            }
        }
    }

    private static void requireIdentifier(String name, Object value, Object item) {
        if (!(item instanceof String text) || !isIdentifier(text)) {
            String what = value == item ? "must" : "'" + item + "' must";
            throw new ConfigException(name, value,
                    what + " be 1-64 characters from [A-Za-z0-9_-] (no dots: they separate key parts)");
        }
    }

    @Override
    public String toString() {
        return list ? "list of names [A-Za-z0-9_-]{1,64}" : "name [A-Za-z0-9_-]{1,64}";
    }
}
