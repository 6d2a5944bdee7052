package io.jetstream.kafka.connect.common.config;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The keys both connectors use to reach their site's relays: endpoints, stream identity and secret,
 * TLS, timeouts. Declared once here so both connectors spell, validate and document them alike.
 */
public final class RelayClientConfigs {

    public static final String GROUP = "Relays";

    public static final String RELAYS = "relays";
    public static final String STREAM_ID = "stream.id";
    public static final String STREAM_TOKEN = "stream.token";
    public static final String TLS_ENABLED = "relay.tls.enabled";
    public static final String TLS_CA_FILE = "relay.tls.ca.file";
    public static final String TLS_CERT_FILE = "relay.tls.cert.file";
    public static final String TLS_KEY_FILE = "relay.tls.key.file";
    public static final String TLS_RELOAD_INTERVAL_MS = "relay.tls.reload.interval.ms";
    public static final String CONNECT_TIMEOUT_MS = "relay.connect.timeout.ms";
    public static final String HEARTBEAT_INTERVAL_MS = "relay.heartbeat.interval.ms";
    public static final String RECONNECT_BACKOFF_MS = "relay.reconnect.backoff.ms";
    public static final String RECONNECT_BACKOFF_MAX_MS = "relay.reconnect.backoff.max.ms";

    private RelayClientConfigs() {
    }

    /** Adds the relay keys to {@code def}, in group {@value #GROUP}. */
    public static ConfigDef define(ConfigDef def, String relaysDoc) {
        int order = 0;
        return def
                .define(RELAYS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, HostPortListValidator.nonEmpty(),
                        Importance.HIGH, relaysDoc, GROUP, ++order, Width.LONG, "Relays")
                .define(STREAM_ID, Type.STRING, "", Importance.HIGH,
                        "Identifier of the replication stream; the relays accept only streams they list, and the "
                                + "two connectors of one replication must use the same id. Empty means the "
                                + "connector's name.",
                        GROUP, ++order, Width.MEDIUM, "Stream id")
                .define(STREAM_TOKEN, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, new NonEmptyPasswordValidator(),
                        Importance.HIGH, "Secret token of the stream, checked by the relays at handshake. "
                                + "Use a Connect config provider (e.g. ${file:...}) rather than plain text.",
                        GROUP, ++order, Width.MEDIUM, "Stream token")
                .define(TLS_ENABLED, Type.BOOLEAN, true, Importance.HIGH,
                        "Connect to the relays over TLS. Plaintext only when set to false explicitly.",
                        GROUP, ++order, Width.SHORT, "TLS")
                .define(TLS_CA_FILE, Type.STRING, "", Importance.MEDIUM,
                        "PEM file of the CA certificates that sign the relays' certificates. Empty means "
                                + "the JVM's default trust store.",
                        GROUP, ++order, Width.LONG, "TLS CA file")
                .define(TLS_CERT_FILE, Type.STRING, "", Importance.MEDIUM,
                        "PEM certificate chain presented to relays that require client authentication "
                                + "(mutual TLS). Set together with " + TLS_KEY_FILE + ".",
                        GROUP, ++order, Width.LONG, "TLS certificate file")
                .define(TLS_KEY_FILE, Type.STRING, "", Importance.MEDIUM,
                        "PEM (PKCS#8) private key of " + TLS_CERT_FILE + ".",
                        GROUP, ++order, Width.LONG, "TLS key file")
                .define(TLS_RELOAD_INTERVAL_MS, Type.LONG, 10_000L, ConfigDef.Range.between(0, 86_400_000),
                        Importance.LOW, "How often, at most, the task looks at " + TLS_CA_FILE + ", "
                                + TLS_CERT_FILE + " and " + TLS_KEY_FILE + " for a change, when it opens a "
                                + "connection to a relay. Changed files are taken without restarting the task: "
                                + "new relay connections use the new certificate and CAs, open ones keep their "
                                + "session. Files that cannot be used (half-written, unparsable, a key that does "
                                + "not belong to the certificate) are not taken: the task keeps what it has and "
                                + "logs a WARN naming the file. 0: at every new connection. The connections to "
                                + "the Kafka clusters follow Kafka's own ssl.* settings, which clients read at start.",
                        GROUP, ++order, Width.SHORT, "TLS files check interval (ms)")
                .define(CONNECT_TIMEOUT_MS, Type.LONG, 10_000L, ConfigDef.Range.between(100, 300_000),
                        Importance.LOW, "Timeout of a TCP and TLS connection to a relay.",
                        GROUP, ++order, Width.SHORT, "Connect timeout (ms)")
                .define(HEARTBEAT_INTERVAL_MS, Type.LONG, 1_000L, ConfigDef.Range.between(50, 60_000),
                        Importance.LOW, "Interval of heartbeats (which also measure the round-trip time) to "
                                + "each relay; a relay silent for three intervals is considered down.",
                        GROUP, ++order, Width.SHORT, "Heartbeat interval (ms)")
                .define(RECONNECT_BACKOFF_MS, Type.LONG, 100L, ConfigDef.Range.between(1, 60_000),
                        Importance.LOW, "First pause before reconnecting to a relay; doubles on each failure.",
                        GROUP, ++order, Width.SHORT, "Reconnect backoff (ms)")
                .define(RECONNECT_BACKOFF_MAX_MS, Type.LONG, 10_000L, ConfigDef.Range.between(1, 600_000),
                        Importance.LOW, "Cap of the reconnect backoff.",
                        GROUP, ++order, Width.SHORT, "Reconnect backoff max (ms)");
    }

    /** The typed settings; {@code connectorName} fills an empty stream id. */
    public static Settings settings(AbstractConfig config, String connectorName) {
        String streamId = config.getString(STREAM_ID);
        if (streamId.isBlank()) {
            streamId = connectorName;
        }
        boolean tls = config.getBoolean(TLS_ENABLED);
        Settings settings = new Settings(
                Endpoints.parseAll(config.getList(RELAYS)), streamId, config.getPassword(STREAM_TOKEN), tls,
                path(config.getString(TLS_CA_FILE)), path(config.getString(TLS_CERT_FILE)),
                path(config.getString(TLS_KEY_FILE)),
                Duration.ofMillis(config.getLong(TLS_RELOAD_INTERVAL_MS)),
                Duration.ofMillis(config.getLong(CONNECT_TIMEOUT_MS)),
                Duration.ofMillis(config.getLong(HEARTBEAT_INTERVAL_MS)),
                Duration.ofMillis(config.getLong(RECONNECT_BACKOFF_MS)),
                Duration.ofMillis(config.getLong(RECONNECT_BACKOFF_MAX_MS)));
        settings.check();
        return settings;
    }

    private static Optional<Path> path(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
    }

    /** Typed relay-client settings. */
    public record Settings(List<InetSocketAddress> relays, String streamId, Password token, boolean tls,
                           Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile,
                           Duration tlsReloadInterval, Duration connectTimeout, Duration heartbeatInterval,
                           Duration reconnectBackoff, Duration reconnectBackoffMax) {

        public Settings {
            relays = List.copyOf(relays);
        }

        /** Checks between timing keys (TLS pairs and files: {@link CrossFieldValidation}). */
        void check() {
            if (reconnectBackoffMax.compareTo(reconnectBackoff) < 0) {
                throw new ConfigException(RECONNECT_BACKOFF_MAX_MS, reconnectBackoffMax.toMillis(),
                        "must not be below " + RECONNECT_BACKOFF_MS + " (" + reconnectBackoff.toMillis() + ")");
            }
        }

        @Override
        public String toString() {
            return "relays=" + relays + " stream=" + streamId + " tls=" + tls;
        }
    }
}
