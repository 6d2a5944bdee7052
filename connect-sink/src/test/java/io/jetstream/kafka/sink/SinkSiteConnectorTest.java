package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.sink.config.HangingTransactionConfigs;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import io.jetstream.kafka.sink.config.SinkSiteConfigTest;
import io.jetstream.kafka.sink.config.SinkSiteTaskConfig;
import io.jetstream.kafka.sink.exactlyonce.HangingTransactionAborter;
import io.jetstream.kafka.sink.exactlyonce.HangingTransactionWatches;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.connector.ConnectorContext;
import org.junit.jupiter.api.Test;

class SinkSiteConnectorTest {

    @Test
    void taskConfigsOfALaterGenerationDifferOnlyInTheGenerationAndAreValid() {
        List<Map<String, String>> first = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 2, 0);
        List<Map<String, String>> later = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 2, 3);

        assertThat(first.get(0)).doesNotContainKey(SinkSiteTaskConfig.TASK_GENERATION)
                .isEqualTo(SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 2).get(0));
        assertThat(later).allSatisfy(task -> assertThat(task).containsEntry(SinkSiteTaskConfig.TASK_GENERATION, "3"));
        assertThat(later.get(1)).isNotEqualTo(first.get(1));
        later.get(1).remove(SinkSiteTaskConfig.TASK_GENERATION);
        assertThat(later.get(1)).isEqualTo(first.get(1));
        new SinkSiteTaskConfig(later.get(0));
    }

    @Test
    void taskIOfNTakesShareIOfN() {
        List<Map<String, String>> tasks = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 4);
        assertThat(tasks).extracting(t -> t.get(SinkSiteConnector.TASK_ID)).containsExactly("0", "1", "2", "3");
        assertThat(tasks).allMatch(t -> t.get(SinkSiteConnector.TASK_COUNT).equals("4"));
        SinkSiteTaskConfig third = new SinkSiteTaskConfig(tasks.get(2));
        assertThat(third.taskId()).isEqualTo(2);
        assertThat(third.taskCount()).isEqualTo(4);
        assertThat(third.exactlyOnce()).isFalse();
    }

    @Test
    void aMalformedTaskConfigurationNamesTheKey() {
        Map<String, String> task = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 2).get(1);
        task.put(SinkSiteTaskConfig.TASK_ID, "2");
        assertThatThrownBy(() -> new SinkSiteTaskConfig(task)).hasMessageContaining(SinkSiteTaskConfig.TASK_ID)
                .hasMessageContaining("must be below");
        task.remove(SinkSiteTaskConfig.TASK_COUNT);
        assertThatThrownBy(() -> new SinkSiteTaskConfig(task)).hasMessageContaining(SinkSiteTaskConfig.TASK_COUNT);
        Map<String, String> exactlyOnce = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 1).get(0);
        exactlyOnce.put(SinkSiteTaskConfig.EXACTLY_ONCE_SUPPORT, "REQUIRED");
        assertThat(new SinkSiteTaskConfig(exactlyOnce).exactlyOnce()).isTrue();
    }

    @Test
    void theTaskKnowsWhetherEachPollIsOneTransactionFromConnectsBoundaryKey() {
        Map<String, String> task = SinkSiteConnector.taskConfigs(SinkSiteConfigTest.valid(), 1).get(0);
        assertThat(new SinkSiteTaskConfig(task).transactionPerPoll()).as("Connect's default, poll").isTrue();
        task.put(SinkSiteTaskConfig.TRANSACTION_BOUNDARY, "Interval");
        assertThat(new SinkSiteTaskConfig(task).transactionPerPoll()).isFalse();
        task.put(SinkSiteTaskConfig.TRANSACTION_BOUNDARY, "every-poll");
        assertThatThrownBy(() -> new SinkSiteTaskConfig(task))
                .hasMessageContaining(SinkSiteTaskConfig.TRANSACTION_BOUNDARY);
    }

    @Test
    void theHangingTransactionCheckIntervalIsValidatedOnItsKey() {
        Map<String, String> props = SinkSiteConfigTest.valid();
        props.put(HangingTransactionConfigs.CHECK_INTERVAL_MS, "10");
        assertThatThrownBy(() -> new SinkSiteConfig(props)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(HangingTransactionConfigs.CHECK_INTERVAL_MS);
    }

    @Test
    void anExactlyOnceConnectorsHangingTransactionCheckGoesOnAfterItStopsAndTheNextInstanceTakesItOver()
            throws InterruptedException {
        try (Metrics registry = new Metrics()) {
            Map<String, String> props = SinkSiteConfigTest.valid();
            props.put("name", "eos-sink");
            props.put(SinkSiteTaskConfig.EXACTLY_ONCE_SUPPORT, "required");
            SinkSiteConnector connector = new SinkSiteConnector();
            connector.initialize(context(new PluginMetricsImpl(registry, Map.of("connector", "eos-sink"))));

            connector.start(props);
            assertThat(checkThreads()).isEqualTo(1);
            assertThat(registry.metrics().keySet()).anyMatch(n -> n.name().equals(HangingTransactionAborter.ABORTED_METRIC));

            connector.stop();
            assertThat(registry.metrics().keySet()).noneMatch(n -> n.name().equals(HangingTransactionAborter.ABORTED_METRIC));
            // the destination (nothing listens at its address) never answers: not settled, the check goes on
            assertThat(checkThreads()).isEqualTo(1);

            SinkSiteConnector next = new SinkSiteConnector();
            next.initialize(context(new PluginMetricsImpl(registry, Map.of("connector", "eos-sink"))));
            next.start(props);
            assertThat(checkThreads()).as("taken over, not a second one").isEqualTo(1);
            next.stop();
        } finally {
            HangingTransactionWatches.WORKER.close("eos-sink");
        }
        awaitCheckThreadsEnded(); // a terminated executor's thread may still be leaving run()
        assertThat(checkThreads()).isZero();
    }

    @Test
    void anAtLeastOnceConnectorHasNoHangingTransactionCheck() {
        SinkSiteConnector connector = new SinkSiteConnector();
        connector.initialize(context(null));
        connector.start(SinkSiteConfigTest.valid());
        assertThat(checkThreads()).isZero();
        connector.stop();
    }

    private static void awaitCheckThreadsEnded() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jetstream-hanging-transactions-")) {
                t.join(10_000);
            }
        }
    }

    private static long checkThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("jetstream-hanging-transactions-")).count();
    }

    private static ConnectorContext context(PluginMetrics metrics) {
        return new ConnectorContext() {
            @Override
            public void requestTaskReconfiguration() {
            }

            @Override
            public void raiseError(Exception e) {
            }

            @Override
            public PluginMetrics pluginMetrics() {
                return metrics;
            }
        };
    }
}
