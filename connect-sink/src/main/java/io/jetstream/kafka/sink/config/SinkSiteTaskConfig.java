package io.jetstream.kafka.sink.config;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The configuration of one destination-site task: every connector key ({@link SinkSiteConfig}) plus
 * the keys {@link io.jetstream.kafka.sink.SinkSiteConnector#taskConfigs} adds (the task's share of the origin partitions)
 * and the Connect keys the task reads (connector name, exactly-once mode). Users never set the task
 * keys; they are declared so a task refuses a malformed task configuration with the key named.
 */
public final class SinkSiteTaskConfig extends SinkSiteConfig {

    public static final String TASK_ID = "jetstream.task.id";
    public static final String TASK_COUNT = "jetstream.task.count";
    /** Set by the connector after it aborted hanging transactions: new task configs make Connect restart the tasks. */
    public static final String TASK_GENERATION = "jetstream.task.generation";
    /** Connect's connector key, passed on so the task knows whether its commits are transactional. */
    public static final String EXACTLY_ONCE_SUPPORT = ConnectKeys.EXACTLY_ONCE_SUPPORT;
    public static final String NAME = "name";
    /** Connect's connector key: with {@code poll} (its default) each poll's records are one transaction. */
    public static final String TRANSACTION_BOUNDARY = ConnectKeys.TRANSACTION_BOUNDARY;

    public static final ConfigDef CONFIG_DEF = new ConfigDef(SinkSiteConfig.CONFIG_DEF)
            .define(TASK_ID, Type.INT, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Set by the connector: this task's index; it subscribes to origin partitions p with "
                            + "p mod jetstream.task.count = jetstream.task.id.")
            .define(TASK_COUNT, Type.INT, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Range.atLeast(1), Importance.LOW,
                    "Set by the connector: how many tasks share the stream.")
            .define(TASK_GENERATION, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Set by the connector: rounds of hanging transactions it aborted since it started (the "
                            + "tasks ignore it; a new value makes Connect restart them).")
            .define(EXACTLY_ONCE_SUPPORT, Type.STRING, "requested",
                    ConfigDef.CaseInsensitiveValidString.in("required", "requested"), Importance.LOW,
                    "Connect's connector key: with 'required' the task acknowledges a batch when the transaction "
                            + "holding its records commits; otherwise after the offset flush that stores its "
                            + "progress (at-least-once).")
            .define(TRANSACTION_BOUNDARY, Type.STRING, "poll",
                    ConfigDef.CaseInsensitiveValidString.in("poll", "interval", "connector"), Importance.LOW,
                    "Connect's connector key: with exactly-once and 'poll' each poll's records are one "
                            + "transaction (the offset map relies on it).")
            .define(NAME, Type.STRING, "jetstream-sink", new ConfigDef.NonEmptyString(), Importance.LOW,
                    "Connect's connector name; names the task's relay session and clients.");

    public SinkSiteTaskConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        if (taskId() >= taskCount()) {
            throw new ConfigException(TASK_ID, taskId(), "must be below " + TASK_COUNT + " (" + taskCount() + ")");
        }
    }

    public int taskId() {
        return getInt(TASK_ID);
    }

    public int taskCount() {
        return getInt(TASK_COUNT);
    }

    /** Whether Connect commits this task's records in transactions (exactly-once). */
    public boolean exactlyOnce() {
        return "required".equalsIgnoreCase(getString(EXACTLY_ONCE_SUPPORT));
    }

    /** Whether each poll's records are one transaction when Connect runs the task exactly-once. */
    public boolean transactionPerPoll() {
        return "poll".equalsIgnoreCase(getString(TRANSACTION_BOUNDARY));
    }

    public String connectorName() {
        return getString(NAME);
    }
}
