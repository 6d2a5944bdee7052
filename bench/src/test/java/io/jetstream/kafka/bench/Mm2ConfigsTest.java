package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class Mm2ConfigsTest {

    @Test
    void defaultsChangeOnlyWhatTheSitesNeed() {
        Variant.Mm2Setup setup = Variants.byId(Variants.MM2_DEFAULT_DST).mm2().orElseThrow();
        Map<String, String> config = Mm2Configs.connector(setup, "bench.x", "a:1", "b:2");

        assertThat(config).containsEntry("connector.class", Mm2Configs.CONNECTOR_CLASS)
                .containsEntry("source.cluster.alias", "A").containsEntry("target.cluster.alias", "B")
                .containsEntry("source.cluster.bootstrap.servers", "a:1")
                .containsEntry("target.cluster.bootstrap.servers", "b:2")
                .containsEntry("topics", "bench.x").containsEntry("tasks.max", "1")
                .containsEntry("replication.factor", "1")
                .containsEntry("offset-syncs.topic.replication.factor", "1");
        assertThat(config.keySet()).noneMatch(key -> key.startsWith("producer.") || key.startsWith("source.consumer."));
    }

    @Test
    void tunedVariantsStateTheirTuning() {
        Map<String, String> config = Mm2Configs.connector(
                Variants.byId(Variants.MM2_TUNED_SRC).mm2().orElseThrow(), "bench.x", "a:1", "b:2");

        assertThat(config).containsEntry("tasks.max", "6")
                .containsEntry("source.consumer.receive.buffer.bytes", "-1")
                .containsEntry("source.consumer.max.partition.fetch.bytes", Integer.toString(4 << 20))
                .containsEntry("producer.override.batch.size", Integer.toString(1 << 20))
                .containsEntry("producer.override.compression.type", "zstd")
                .containsEntry("producer.override.send.buffer.bytes", "-1")
                .containsEntry("emit.offset-syncs.enabled", "false")
                .containsAllEntriesOf(Mm2Configs.tuning());
        // MM2 refuses offset-syncs settings while offset syncs are off
        assertThat(config).doesNotContainKey("offset-syncs.topic.replication.factor");
        assertThat(Mm2Configs.connector(Variants.byId(Variants.MM2_TUNED_3WORKERS).mm2().orElseThrow(), "t", "a", "b"))
                .containsEntry("tasks.max", "6");
    }

    @Test
    void workersOfAGroupShareItsIdAndTopicsWithoutExactlyOnce() {
        assertThat(Mm2Configs.worker(Variants.byId(Variants.MM2_TUNED_SRC).mm2().orElseThrow()))
                .containsEntry("group.id", "mm2-src")
                .containsEntry("config.storage.topic", "_mm2-src-configs")
                .containsEntry("offset.storage.topic", "_mm2-src-offsets")
                .containsEntry("status.storage.topic", "_mm2-src-status")
                .containsEntry("exactly.once.source.support", "disabled");
        assertThat(Mm2Configs.destinationTopic("bench.x")).isEqualTo("A.bench.x");
    }

    @Test
    void theExactlyOnceVariantRunsItsOwnWorkersWithExactlyOnceRequired() {
        Variant.Mm2Setup eos = Variants.byId(Variants.MM2_TUNED_SRC_EOS).mm2().orElseThrow();
        assertThat(eos.group()).isEqualTo("mm2-src-eos");
        assertThat(Mm2Configs.worker(eos)).containsEntry("group.id", "mm2-src-eos")
                .containsEntry("offset.storage.topic", "_mm2-src-eos-offsets")
                .containsEntry("exactly.once.source.support", "enabled");
        assertThat(Mm2Configs.connector(eos, "t", "a", "b")).containsEntry("exactly.once.support", "required")
                .containsEntry("source.consumer.isolation.level", "read_committed").containsAllEntriesOf(Mm2Configs.tuning());
        assertThat(Mm2Configs.connector(Variants.byId(Variants.MM2_TUNED_SRC).mm2().orElseThrow(), "t", "a", "b"))
                .doesNotContainKey("exactly.once.support");
    }

    @Test
    void placementsFormOneGroupPerSite() {
        assertThat(Variants.byId(Variants.MM2_TUNED_SRC).mm2().orElseThrow().group()).isEqualTo("mm2-src");
        assertThat(Variants.byId(Variants.MM2_TUNED_3WORKERS).mm2().orElseThrow().group()).isEqualTo("mm2-src");
        assertThat(Variants.byId(Variants.MM2_TUNED_DST).mm2().orElseThrow().workerHosts()).containsExactly("b2");
        assertThat(Variants.byId(Variants.MM2_TUNED_3WORKERS).mm2().orElseThrow().workerHosts())
                .containsExactly("a1", "a2", "a3");
    }
}
