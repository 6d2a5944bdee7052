package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.offsets.OffsetMapReader;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import io.jetstream.kafka.core.offsets.OffsetTranslator.Status;
import io.jetstream.kafka.core.offsets.OffsetTranslator.Translation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * Checks the destination's offset map against what both sites hold: for every record of a
 * replicated topic, and every origin position between two records (transaction markers, aborted
 * records), the map translates the origin position to the destination position of the same record,
 * and back.
 */
final class OffsetMapCheck {

    static final String MAP_TOPIC = "jetstream-offset-map.internal";

    private OffsetMapCheck() {
    }

    /**
     * @param origin  the origin topic as read at site A
     * @param replica the destination topic as read at site B, already verified equal to {@code origin}
     * @return how many positions were checked
     */
    static long assertExact(String destinationBootstrap, String sourceAlias, String originTopic, TopicContent origin,
                            TopicContent replica) {
        Map<TopicPartition, OffsetTranslator> map = OffsetMapReader.read(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, destinationBootstrap), MAP_TOPIC,
                p -> p.sourceAlias().equals(sourceAlias) && p.topic().equals(originTopic), Duration.ofSeconds(60));
        long checked = 0;
        for (var partition : origin.partitions().entrySet()) {
            List<TopicContent.Entry> at = partition.getValue();
            List<TopicContent.Entry> copy = replica.partitions().get(partition.getKey());
            assertThat(copy).hasSameSizeAs(at);
            if (at.isEmpty()) {
                continue;
            }
            OffsetTranslator translator = map.get(new TopicPartition(originTopic, partition.getKey()));
            assertThat(translator).as("offset map entries of %s-%d", originTopic, partition.getKey()).isNotNull();
            long previousOrigin = translator.firstOriginPosition() - 1;
            for (int i = 0; i < at.size(); i++) {
                long originOffset = at.get(i).offset();
                long destinationOffset = copy.get(i).offset();
                // every position after the previous record up to this one resumes at this record's copy
                for (long position = Math.max(previousOrigin + 1, originOffset - 3); position <= originOffset;
                     position++) {
                    assertThat(translator.toDestination(position)).as("%s-%d origin position %d", originTopic,
                            partition.getKey(), position).isEqualTo(new Translation(Status.EXACT, destinationOffset));
                    checked++;
                }
                assertThat(translator.toOrigin(destinationOffset)).as("%s-%d destination position %d", originTopic,
                        partition.getKey(), destinationOffset).isEqualTo(new Translation(Status.EXACT, originOffset));
                previousOrigin = originOffset;
            }
            long end = at.get(at.size() - 1).offset() + 1;
            Translation afterAll = translator.toDestination(end);
            assertThat(afterAll.exact()).as("%s-%d position after the last record", originTopic, partition.getKey())
                    .isTrue();
            assertThat(afterAll.offset()).isEqualTo(copy.get(copy.size() - 1).offset() + 1);
            checked++;
        }
        return checked;
    }
}
