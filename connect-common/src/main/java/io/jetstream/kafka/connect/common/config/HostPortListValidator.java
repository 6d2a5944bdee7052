package io.jetstream.kafka.connect.common.config;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Validates a LIST of {@code host:port} endpoints (IPv6 hosts in brackets). An empty list is
 * rejected unless {@link #allowingEmpty()} is used.
 */
public final class HostPortListValidator implements ConfigDef.Validator {

    private final boolean allowEmpty;

    private HostPortListValidator(boolean allowEmpty) {
        this.allowEmpty = allowEmpty;
    }

    public static HostPortListValidator nonEmpty() {
        return new HostPortListValidator(false);
    }

    public static HostPortListValidator allowingEmpty() {
        return new HostPortListValidator(true);
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null) {
            throw new ConfigException(name, null, "must list host:port endpoints");
        }
        @SuppressWarnings("unchecked")
        List<String> endpoints = (List<String>) value;
        if (endpoints.isEmpty() && !allowEmpty) {
            throw new ConfigException(name, value, "must list at least one host:port endpoint");
        }
        for (String endpoint : endpoints) {
            try {
                Endpoints.parse(endpoint);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return (allowEmpty ? "" : "non-empty ") + "list of host:port";
    }
}
