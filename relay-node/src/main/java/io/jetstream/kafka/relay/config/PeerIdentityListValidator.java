package io.jetstream.kafka.relay.config;

import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A list of {@link PeerIdentity} entries; empty means the role is not bound to certificates. */
final class PeerIdentityListValidator implements ConfigDef.Validator {

    static final PeerIdentityListValidator INSTANCE = new PeerIdentityListValidator();

    private PeerIdentityListValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null) {
            return;
        }
        if (!(value instanceof List<?> entries)) {
            throw new ConfigException(name, value, "must be a list of certificate identities");
        }
        for (Object entry : entries) {
            try {
                PeerIdentity.parse(String.valueOf(entry));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return "entries cn:<common name>, dns:<name>, uri:<uri> or ip:<address>; empty: any verified certificate";
    }
}
