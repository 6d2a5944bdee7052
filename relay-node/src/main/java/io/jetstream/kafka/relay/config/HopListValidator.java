package io.jetstream.kafka.relay.config;

import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The relays a route passes through after this one, in order: a list of {@code host:port}. An empty
 * list, or the single word {@value #LOCAL}, means this relay is itself the egress for the
 * destination (sink-site tasks subscribe to it).
 */
public final class HopListValidator implements ConfigDef.Validator {

    public static final String LOCAL = "local";
    public static final HopListValidator INSTANCE = new HopListValidator();

    private HopListValidator() {
    }

    /** Whether a validated hop list means "this relay is the egress". */
    static boolean isLocal(List<String> hops) {
        return hops.isEmpty() || hops.equals(List.of(LOCAL));
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof List<?> hops)) {
            throw new ConfigException(name, value, "must be a list of host:port");
        }
        if (hops.size() == 1 && LOCAL.equals(hops.get(0))) {
            return;
        }
        for (Object hop : hops) {
            if (LOCAL.equals(hop)) {
                throw new ConfigException(name, value,
                        "'" + LOCAL + "' must stand alone: it means this relay is the egress");
            }
            try {
                HopAddress.parse(String.valueOf(hop));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, "bad hop " + e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return "list of host:port, or [] / " + LOCAL + " for the egress";
    }
}
