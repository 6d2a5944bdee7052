package io.jetstream.kafka.relay.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A TCP port to listen on: 1-65535, or 0 to let the operating system pick a free port (tests). */
public final class PortValidator implements ConfigDef.Validator {

    public static final PortValidator INSTANCE = new PortValidator();

    private PortValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof Integer port) || port < 0 || port > 65535) {
            throw new ConfigException(name, value, "must be between 0 and 65535 (0 picks a free port)");
        }
    }

    @Override
    public String toString() {
        return "TCP port 0-65535 (0 = any free port)";
    }
}
