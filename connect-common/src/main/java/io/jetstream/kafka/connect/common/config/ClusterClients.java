package io.jetstream.kafka.connect.common.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * How a connector's own Kafka clients reach one cluster: bootstrap servers plus the cluster's
 * security settings ({@link ClusterClientConfigs}), the one place every Admin client and consumer
 * of a connector takes its configuration from. Immutable.
 *
 * <p>Secrets are held as {@link org.apache.kafka.common.config.types.Password}, which prints as
 * {@code [hidden]}: neither {@link #toString()} nor a logged configuration map shows them. Kafka's
 * clients accept them as they are.
 */
public final class ClusterClients {

    private final String cluster;
    private final Map<String, Object> properties;
    private final Set<String> ignoredKeys;

    ClusterClients(String cluster, Map<String, Object> properties, Set<String> ignoredKeys) {
        this.cluster = cluster;
        this.properties = Map.copyOf(properties);
        this.ignoredKeys = Set.copyOf(ignoredKeys);
    }

    /** A fresh, modifiable client configuration with {@code client.id}; add client-specific keys to it. */
    public Map<String, Object> config(String clientId) {
        Map<String, Object> config = new LinkedHashMap<>(properties);
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return config;
    }

    /** A new Admin client; the caller closes it. */
    public Admin admin(String clientId) {
        return Admin.create(config(clientId));
    }

    public String bootstrapServers() {
        return (String) properties.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
    }

    public String securityProtocol() {
        Object protocol = properties.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        return protocol == null ? CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL : protocol.toString().toUpperCase();
    }

    /**
     * Keys under the cluster prefix that are neither Kafka client security settings nor the
     * connector's own keys: not passed to any client (MirrorMaker 2 ignores them too).
     */
    public Set<String> ignoredKeys() {
        return ignoredKeys;
    }

    /** The cluster, its bootstrap servers and protocol (with the SASL mechanism); never a secret. */
    @Override
    public String toString() {
        String protocol = securityProtocol();
        Object mechanism = properties.getOrDefault(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM);
        return cluster + " " + bootstrapServers() + " over " + protocol
                + (protocol.startsWith("SASL_") ? " (" + mechanism + ")" : "");
    }
}
