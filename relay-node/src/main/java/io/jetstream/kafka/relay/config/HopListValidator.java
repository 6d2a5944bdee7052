package io.jetstream.kafka.relay.config;

import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A list of relay data addresses, each {@code host:port} (see {@link HopAddress#parse}); may be
 * empty. Two kinds: a route's hops ({@link #ROUTE_HOPS}), the relays the route passes through after
 * this one, in order, where an empty list or the single word {@value #LOCAL} means this relay is
 * itself the destination's egress (destination-site tasks subscribe to it); and plain addresses
 * ({@link #ADDRESSES}, {@code next.hops.allowed}), where {@value #LOCAL} is no address.
 */
public final class HopListValidator implements ConfigDef.Validator {

    public static final String LOCAL = "local";
    /** A route's hops: addresses, or {@code []} / {@value #LOCAL} alone for "this relay is the egress". */
    public static final HopListValidator ROUTE_HOPS = new HopListValidator(true);
    /** Relay data addresses, nothing else. */
    public static final HopListValidator ADDRESSES = new HopListValidator(false);

    private final boolean routeHops;

    private HopListValidator(boolean routeHops) {
        this.routeHops = routeHops;
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
        if (routeHops && hops.size() == 1 && LOCAL.equals(hops.get(0))) {
            return;
        }
        for (Object hop : hops) {
            if (routeHops && LOCAL.equals(hop)) {
                throw new ConfigException(name, value,
                        "'" + LOCAL + "' must stand alone: it means this relay is the egress");
            }
            try {
                HopAddress.parse(String.valueOf(hop));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, (routeHops ? "bad hop " : "bad address ") + e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return routeHops ? "list of host:port, or [] / " + LOCAL + " for the egress" : "list of host:port";
    }
}
