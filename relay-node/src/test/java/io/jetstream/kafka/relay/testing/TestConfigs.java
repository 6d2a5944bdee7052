package io.jetstream.kafka.relay.testing;

import java.util.LinkedHashMap;
import java.util.Map;

import io.jetstream.kafka.relay.config.RelayConfig;

/** Relay configurations for tests: loopback, free ports, plaintext unless TLS keys are added. */
public final class TestConfigs {

    private TestConfigs() {
    }

    public static Map<String, Object> plaintext(String relayId) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(RelayConfig.RELAY_ID, relayId);
        props.put(RelayConfig.LISTENER_HOST, "127.0.0.1");
        props.put(RelayConfig.LISTENER_PORT, 0);
        props.put(RelayConfig.ADMIN_HOST, "127.0.0.1");
        props.put(RelayConfig.ADMIN_PORT, 0);
        props.put(RelayConfig.TLS_ENABLED, false);
        props.put(RelayConfig.IO_THREADS, 2);
        return props;
    }
}
