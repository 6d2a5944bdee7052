package io.jetstream.kafka.sink.config;

import java.util.Map;

/**
 * Kafka Connect's own connector keys that the destination-site connector and its tasks read: they
 * are Connect's, declared here once so that the connector's, the task's and each feature's
 * configuration name them alike.
 */
public final class ConnectKeys {

    /** Connect's connector key: {@code required} runs the tasks exactly-once, in transactions. */
    public static final String EXACTLY_ONCE_SUPPORT = "exactly.once.support";
    /** Connect's connector key for when source tasks commit their transactions. */
    public static final String TRANSACTION_BOUNDARY = "transaction.boundary";

    private ConnectKeys() {
    }

    /** Whether a connector configuration asks for exactly-once ({@code exactly.once.support=required}). */
    public static boolean exactlyOnce(Map<String, String> connectorProps) {
        return "required".equalsIgnoreCase(connectorProps.getOrDefault(EXACTLY_ONCE_SUPPORT, "").trim());
    }
}
