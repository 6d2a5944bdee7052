package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.config.CrossFieldValidation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's source-site connector. In Kafka Connect's terms it is a {@link SinkConnector}: it
 * consumes the topics named by {@code topics} or {@code topics.regex} from the local (source)
 * cluster, and its tasks ship them in batches to the relays of this site. Connect assigns the
 * partitions to tasks; every task gets the same configuration plus its index.
 */
public final class SourceSiteConnector extends SinkConnector {

    private static final Logger log = LoggerFactory.getLogger(SourceSiteConnector.class);

    /** Internal key: the task's index, added to each task's configuration. */
    static final String TASK_ID = SourceSiteTaskConfig.TASK_ID;

    private Map<String, String> props;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceSiteConfig config = new SourceSiteConfig(props); // fail fast, naming the key
        var ignored = config.sourceCluster().ignoredKeys();
        if (!ignored.isEmpty()) {
            log.warn("Ignoring {}: the connector's clients take only Kafka client security settings "
                    + "(security.protocol, ssl.*, sasl.*) under source.cluster.", ignored);
        }
        if (config.carriesRemovedBatchPolicy()) {
            log.warn("Ignoring {}={}: the key was removed in this release and batching is always fixed at the "
                    + "batch.* caps, as that value asked; remove it from the configuration (docs/model.md, \"Why "
                    + "there is no adaptive batching\").", SourceSiteConfig.REMOVED_BATCH_POLICY,
                    SourceSiteConfig.REMOVED_POLICY_VALUE);
        }
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return SourceSiteTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return taskConfigs(props, maxTasks);
    }

    /** Every task gets the connector's configuration plus its index. */
    static List<Map<String, String>> taskConfigs(Map<String, String> props, int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TASK_ID, Integer.toString(i));
            configs.add(task);
        }
        return configs;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return SourceSiteConfig.CONFIG_DEF;
    }

    /** Adds the cross-field checks to the per-key validation, each error on the key it concerns. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        CrossFieldValidation.attach(config, SourceSiteConfig.crossFieldErrors(connectorConfigs));
        return config;
    }
}
