package io.jetstream.kafka.source;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The configuration of one source-site task: every connector key ({@link SourceSiteConfig}) plus
 * the key {@link SourceSiteConnector#taskConfigs} adds and the Connect key the task reads. Users
 * never set the task keys; they are declared so a task refuses a malformed task configuration with
 * the key named.
 */
public final class SourceSiteTaskConfig extends SourceSiteConfig {

    public static final String TASK_ID = "jetstream.task.id";
    public static final String NAME = "name";
    /** Connect's override of the consumer group; read, not declared (Connect validates it). */
    static final String CONSUMER_GROUP_ID = "consumer.override.group.id";

    public static final ConfigDef CONFIG_DEF = new ConfigDef(SourceSiteConfig.CONFIG_DEF)
            .define(TASK_ID, Type.INT, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Set by the connector: this task's index, part of its relay session name.")
            .define(NAME, Type.STRING, "jetstream-source", new ConfigDef.NonEmptyString(), Importance.LOW,
                    "Connect's connector name; names the task's relay session and clients.");

    public SourceSiteTaskConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    public int taskId() {
        return getInt(TASK_ID);
    }

    public String connectorName() {
        return getString(NAME);
    }

    /** The consumer group Connect gives this connector: {@code consumer.override.group.id}, else {@code connect-<name>}. */
    public String consumerGroupId() {
        String override = originalsStrings().get(CONSUMER_GROUP_ID);
        return override == null || override.isBlank() ? "connect-" + connectorName() : override;
    }
}
