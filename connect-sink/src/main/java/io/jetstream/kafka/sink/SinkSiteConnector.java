package io.jetstream.kafka.sink;

import io.jetstream.kafka.connect.common.config.CrossFieldValidation;
import io.jetstream.kafka.sink.checkpoint.GroupCheckpointer;
import io.jetstream.kafka.sink.config.CheckpointConfigs;
import io.jetstream.kafka.sink.config.ConnectKeys;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import io.jetstream.kafka.sink.config.SinkSiteTaskConfig;
import io.jetstream.kafka.sink.exactlyonce.HangingTransactionAborter;
import io.jetstream.kafka.sink.exactlyonce.HangingTransactionWatches;
import io.jetstream.kafka.sink.exactlyonce.HangingTransactions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's destination-site connector. In Kafka Connect's terms it is a {@link SourceConnector}:
 * it produces into the local (destination) cluster. Its tasks subscribe to the site's egress relays,
 * each for one share of the origin partitions (task i of n takes the partitions
 * {@code Shares.owner(topic, partition, n) == i}), and write the records they receive.
 * Supports exactly-once ({@code exactly.once.support=required} on a worker with
 * {@code exactly.once.source.support=enabled}); then it also aborts its tasks' hanging transactions
 * in the destination cluster and has Connect restart the tasks ({@link HangingTransactionAborter}), with
 * a check that goes on after the instance stops until the destination is settled
 * ({@link HangingTransactionWatches}).
 */
public final class SinkSiteConnector extends SourceConnector {

    private static final Logger log = LoggerFactory.getLogger(SinkSiteConnector.class);

    /** Keys added to each task's configuration (declared in {@link SinkSiteTaskConfig}): its share. */
    static final String TASK_ID = SinkSiteTaskConfig.TASK_ID;
    static final String TASK_COUNT = SinkSiteTaskConfig.TASK_COUNT;

    private Map<String, String> props;
    /** Consumer group checkpoints and sync, when emit.checkpoints.enabled (one per connector). */
    private GroupCheckpointer checkpointer;
    /**
     * Exactly-once: aborts this connector's hanging transactions (one per connector in a worker, held
     * by this instance and going on after it stops: {@link HangingTransactionWatches}), else null.
     */
    private HangingTransactionAborter hangingTransactions;
    /** This instance as the holder of the check (one object, so that a late release is told apart). */
    private final HangingTransactionAborter.Listener hangingTransactionsHolder = this::restartTasks;
    private Runnable hangingTransactionsMetric = () -> { };
    /** Rounds of aborted hanging transactions since the start: in the task configs, so Connect restarts the tasks. */
    private final AtomicLong taskGeneration = new AtomicLong();

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SinkSiteConfig config = new SinkSiteConfig(props); // fail fast, naming the key
        var ignored = config.targetCluster().ignoredKeys();
        if (!ignored.isEmpty()) {
            log.warn("Ignoring {}: the connector's clients take only Kafka client security settings "
                    + "(security.protocol, ssl.*, sasl.*) under target.cluster.", ignored);
        }
        this.props = Map.copyOf(props);
        if (CheckpointConfigs.enabled(config)) {
            checkpointer = new GroupCheckpointer(config, props.getOrDefault("name", "jetstream-sink"));
        }
        if (ConnectKeys.exactlyOnce(props)) {
            String name = props.getOrDefault("name", "jetstream-sink");
            hangingTransactions = HangingTransactionWatches.WORKER.hold(name, this.props,
                    holder -> HangingTransactionAborter.start(config, name, holder), hangingTransactionsHolder);
            long abortedMeanwhile = hangingTransactions.takeAbortedUnheld();
            if (abortedMeanwhile > 0) {
                // as after an abort while running: task configs of a new generation restart the tasks
                log.warn("The hanging transaction check aborted {} transaction(s) of this connector's tasks while "
                        + "no instance of it ran in this worker; restarting the tasks (task config generation {})",
                        abortedMeanwhile, taskGeneration.incrementAndGet());
            }
            hangingTransactionsMetric = hangingTransactions.registerMetric(() -> context.pluginMetrics());
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return SinkSiteTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return taskConfigs(props, maxTasks, taskGeneration.get());
    }

    /** Task i of n gets share i of n; a pure function of the connector config. */
    static List<Map<String, String>> taskConfigs(Map<String, String> props, int maxTasks) {
        return taskConfigs(props, maxTasks, 0);
    }

    /**
     * Task i of n gets share i of n; with a {@code generation} above 0 each config carries it
     * ({@link SinkSiteTaskConfig#TASK_GENERATION}), so that configs of a later generation differ.
     */
    static List<Map<String, String>> taskConfigs(Map<String, String> props, int maxTasks, long generation) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TASK_ID, Integer.toString(i));
            task.put(TASK_COUNT, Integer.toString(maxTasks));
            if (generation > 0) {
                task.put(SinkSiteTaskConfig.TASK_GENERATION, Long.toString(generation));
            }
            configs.add(task);
        }
        return configs;
    }

    /**
     * Hanging transactions were aborted: a task whose committed records one held has failed
     * ({@code exactly.once.stable.timeout.ms}), and Connect restarts a failed task only when asked.
     * Task configs that differ from the stored ones make every worker stop and start this
     * connector's tasks, FAILED ones included ({@code DistributedHerder} on new task configs); the
     * new instances resume from the progress stored before the aborts (Connect's offsets topic,
     * read read_committed once the aborts let its stable offset move).
     */
    private void restartTasks(List<HangingTransactions.Aborted> aborted) {
        long generation = taskGeneration.incrementAndGet();
        log.warn("Aborted {} hanging transaction(s) of this connector's tasks; restarting the tasks (task config "
                + "generation {}) so that failed ones resume from their stored progress", aborted.size(), generation);
        context.requestTaskReconfiguration();
    }

    @Override
    public void stop() {
        long start = System.nanoTime();
        if (hangingTransactions != null) {
            hangingTransactionsMetric.run();
            // not closed: it goes on until the destination is settled (HangingTransactionWatches says why)
            hangingTransactions.release(hangingTransactionsHolder);
            hangingTransactions = null;
        }
        if (checkpointer != null) {
            checkpointer.close();
            checkpointer = null;
        }
        // Connect calls a connector unresponsive after 5 s, counting its own offset store's stop too
        log.info("Connector {} stopped in {} ms", props == null ? "" : props.getOrDefault("name", ""),
                (System.nanoTime() - start) / 1_000_000);
    }

    @Override
    public ConfigDef config() {
        return SinkSiteConfig.CONFIG_DEF;
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        CrossFieldValidation.attach(config, SinkSiteConfig.crossFieldErrors(connectorConfigs));
        return config;
    }

    /** Records and their source offsets commit in one transaction; nothing else is needed. */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }
}
