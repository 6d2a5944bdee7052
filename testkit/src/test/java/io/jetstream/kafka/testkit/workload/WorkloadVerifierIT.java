package io.jetstream.kafka.testkit.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Workload and verifier against one real in-process KRaft broker: 5,000 records produced, then the same topic verified
 * (identity mapping) perfect, then deliberately wrong expectations shown to be caught.
 */
class WorkloadVerifierIT {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 5_000;

    private static KafkaClusterTestKit cluster;
    private static ProducedLog produced;

    @BeforeAll
    static void produceOnARealBroker() throws Exception {
        cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS)
                .records(RECORDS).valueBytes(300).compressionType("lz4").build();
        produced = new Workload(spec, cluster.bootstrapServers()).run();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theSourceTopicVerifiesPerfectAgainstItself() {
        assertThat(produced.size()).isEqualTo(RECORDS);
        assertThat(produced.failedSends()).isZero();

        VerificationReport report = verifier(Duration.ofSeconds(60)).verify(produced);

        assertThat(report.isPerfect()).as(report.toString()).isTrue();
        assertThat(report.summaryLine())
                .isEqualTo("events=5000 delivered=5000 lost=0 duplicates=0 order=ok fields=ok");
    }

    @Test
    void recordsThatNeverArrivedAreReportedMissing() {
        TopicPartition partition0 = new TopicPartition(TOPIC, 0);
        long nextOffset = produced.records(partition0).size();
        List<ProducedRecord> neverProduced = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            neverProduced.add(new ProducedRecord(nextOffset + i, RECORDS + i, 1, 2, 3, 4));
        }
        ProducedLog wrong = produced.plus(partition0, neverProduced);

        VerificationReport report = verifier(Duration.ofSeconds(5)).verify(wrong);

        assertThat(report.isPerfect()).isFalse();
        assertThat(report.expected()).isEqualTo(RECORDS + 25);
        assertThat(report.delivered()).isEqualTo(RECORDS);
        assertThat(report.missing()).isEqualTo(25);
        assertThat(report.missingSample()).startsWith((long) RECORDS, RECORDS + 1L);
        assertThat(report.summaryLine()).startsWith("events=5025 delivered=5000 lost=25 duplicates=0 order=ok");
    }

    @Test
    void recordsThatWereNotExpectedAreReportedUnexpected() {
        Map<TopicPartition, List<ProducedRecord>> withoutPartition2 = new LinkedHashMap<>(produced.partitions());
        List<ProducedRecord> dropped = withoutPartition2.remove(new TopicPartition(TOPIC, 2));
        ProducedLog wrong = new ProducedLog(produced.runId(), withoutPartition2, 0);

        VerificationReport report = verifier(Duration.ofSeconds(30)).verify(wrong);

        assertThat(report.isPerfect()).isFalse();
        assertThat(report.missing()).isZero();
        assertThat(report.unexpected()).isEqualTo(dropped.size());
    }

    private static Verifier verifier(Duration deadline) {
        return Verifier.builder(cluster.bootstrapServers())
                .topicMapping(Map.of(TOPIC, TOPIC))
                .samePartitions(true)
                .ignoreHeaders(Set.of())
                .deadline(deadline)
                .build();
    }
}
