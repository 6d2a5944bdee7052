package io.jetstream.kafka.relay.config;

import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A list of relay data addresses, each {@code host:port} (see {@link HopAddress#parse}); may be empty. */
final class HopAddressListValidator implements ConfigDef.Validator {

    static final HopAddressListValidator INSTANCE = new HopAddressListValidator();

    private HopAddressListValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof List<?> hops)) {
            throw new ConfigException(name, value, "must be a list of host:port");
        }
        for (Object hop : hops) {
            try {
                HopAddress.parse(String.valueOf(hop));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, "bad address " + e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return "list of host:port";
    }
}
