package io.jetstream.kafka.sink.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.sink.config.CheckpointConfigs;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import io.jetstream.kafka.sink.config.SinkSiteConfigTest;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.Checkpoint;
import org.junit.jupiter.api.Test;

/** Checkpoints of {@code checkpoints.format=mm2} as MirrorMaker 2's own code reads them. */
class Mm2CheckpointFormatTest {

    @Test
    void mirrorMakersCheckpointReadsWhatWeWrite() {
        TopicPartition downstream = new TopicPartition("A.orders-été", 7);
        byte[] key = Mm2CheckpointFormat.key("orders-app", downstream);
        byte[] value = Mm2CheckpointFormat.value(412L, 388L, "");
        Checkpoint read = Checkpoint.deserializeRecord(
                new ConsumerRecord<>("A.checkpoints.internal", 0, 0L, key, value));
        assertThat(read.consumerGroupId()).isEqualTo("orders-app");
        assertThat(read.topicPartition()).isEqualTo(downstream);
        assertThat(read.upstreamOffset()).isEqualTo(412L);
        assertThat(read.downstreamOffset()).isEqualTo(388L);
        assertThat(read.offsetAndMetadata().offset()).isEqualTo(388L);
        assertThat(read.metadata()).isEmpty();
    }

    @Test
    void theBytesAreMirrorMakersOwn() throws Exception {
        Checkpoint theirs = new Checkpoint("g", new TopicPartition("A.t", 2), 10L, 9L, "");
        java.lang.reflect.Method recordKey = Checkpoint.class.getDeclaredMethod("recordKey");
        java.lang.reflect.Method recordValue = Checkpoint.class.getDeclaredMethod("recordValue");
        recordKey.setAccessible(true);
        recordValue.setAccessible(true);
        assertThat(Mm2CheckpointFormat.key("g", new TopicPartition("A.t", 2))).isEqualTo(recordKey.invoke(theirs));
        assertThat(Mm2CheckpointFormat.value(10L, 9L, "")).isEqualTo(recordValue.invoke(theirs));
    }

    @Test
    void theFormatIsChosenByCheckpointsFormat() {
        Map<String, String> props = SinkSiteConfigTest.valid();
        assertThat(CheckpointConfigs.mm2Format(new SinkSiteConfig(props))).isFalse();
        props.put("checkpoints.format", "mm2");
        assertThat(CheckpointConfigs.mm2Format(new SinkSiteConfig(props))).isTrue();
    }
}
