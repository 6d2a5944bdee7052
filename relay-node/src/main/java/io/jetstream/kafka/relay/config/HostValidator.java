package io.jetstream.kafka.relay.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A host name or IP literal to bind or connect to: not blank, no whitespace, no URL scheme or port. */
public final class HostValidator implements ConfigDef.Validator {

    public static final HostValidator INSTANCE = new HostValidator();

    private HostValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof String host) || host.isBlank()) {
            throw new ConfigException(name, value, "must be a host name or IP address, not blank");
        }
        if (!host.equals(host.strip()) || host.chars().anyMatch(Character::isWhitespace)) {
            throw new ConfigException(name, value, "must not contain whitespace");
        }
        if (host.contains("/")) {
            throw new ConfigException(name, value, "must be a bare host name or IP address, without scheme or path");
        }
    }

    @Override
    public String toString() {
        return "host name or IP address";
    }
}
