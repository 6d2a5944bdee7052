package io.jetstream.kafka.source.sender;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class HeartbeatScheduleTest {

    private static final long SECOND = 1_000_000_000L;
    private static final TopicPartition P0 = new TopicPartition("orders", 0);

    private final HeartbeatSchedule schedule = new HeartbeatSchedule(Duration.ofSeconds(4), Duration.ofSeconds(30));

    @Test
    void aPartitionIsDueOnceIdleForAnIntervalAndOnlyOneHeartbeatIsOnThePath() {
        schedule.batchMade(P0, 10 * SECOND);
        assertThat(schedule.due(P0, 13 * SECOND)).isFalse();
        assertThat(schedule.due(P0, 14 * SECOND)).isTrue();

        schedule.sent(P0, 77, 14 * SECOND);
        assertThat(schedule.due(P0, 20 * SECOND)).as("the previous heartbeat is unanswered").isFalse();
        assertThat(schedule.answered(77)).isTrue();
        assertThat(schedule.answered(77)).as("answered once").isFalse();
        assertThat(schedule.answered(12)).as("a data batch's answer").isFalse();
        assertThat(schedule.due(P0, 20 * SECOND)).isTrue();
    }

    @Test
    void anUnansweredHeartbeatStopsHoldingThePartitionAfterTheAckTimeout() {
        schedule.sent(P0, 1, 0);
        assertThat(schedule.due(P0, 29 * SECOND)).isFalse();
        assertThat(schedule.due(P0, 30 * SECOND)).isTrue();

        schedule.sent(P0, 2, 30 * SECOND);
        assertThat(schedule.answered(1)).as("a late answer to the forgotten one").isFalse();
    }

    @Test
    void looksEveryQuarterIntervalAndNeverWhenOff() {
        assertThat(schedule.lookNow(0)).isTrue();
        assertThat(schedule.lookNow(SECOND - 1)).isFalse();
        assertThat(schedule.lookNow(SECOND)).isTrue();
        assertThat(new HeartbeatSchedule(Duration.ZERO, Duration.ofSeconds(30)).lookNow(SECOND)).isFalse();
    }

    @Test
    void aForgottenPartitionStartsAfresh() {
        schedule.batchMade(P0, 10 * SECOND);
        schedule.sent(P0, 5, 20 * SECOND);

        schedule.forget(P0);

        assertThat(schedule.due(P0, 20 * SECOND)).isTrue();
        assertThat(schedule.answered(5)).isFalse();
    }

    @Test
    void aFewIdlePartitionsEachGetTheirHeartbeatEveryInterval() {
        List<TopicPartition> partitions = partitions(10);
        partitions.forEach(tp -> schedule.batchMade(tp, 0));

        assertThat(schedule.pick(partitions, 4 * SECOND, tp -> true)).containsExactlyInAnyOrderElementsOf(partitions);
        assertThat(schedule.pick(partitions, 4 * SECOND, tp -> !tp.equals(P0)))
                .as("a partition with a batch on the path waits").hasSize(9).doesNotContain(P0);
    }

    @Test
    void manyIdlePartitionsShareTwentyHeartbeatsASecondAndNoneIsStarved() {
        HeartbeatSchedule fiveSeconds = new HeartbeatSchedule(Duration.ofSeconds(5), Duration.ofSeconds(30));
        List<TopicPartition> partitions = partitions(1_200);
        partitions.forEach(tp -> fiveSeconds.batchMade(tp, 0));
        Map<TopicPartition, List<Long>> sentAt = new HashMap<>();
        long id = 0;
        int sent = 0;
        long end = 300 * SECOND;
        for (long now = 0; now <= end; now += SECOND / 100) {
            if (!fiveSeconds.lookNow(now)) {
                continue;
            }
            List<TopicPartition> picked = fiveSeconds.pick(partitions, now, tp -> true);
            assertThat(picked.size()).isLessThanOrEqualTo(fiveSeconds.maxPerLook());
            for (TopicPartition tp : picked) {
                fiveSeconds.sent(tp, ++id, now);
                fiveSeconds.answered(id);
                sentAt.computeIfAbsent(tp, k -> new ArrayList<>()).add(now);
                sent++;
            }
        }
        assertThat(fiveSeconds.maxPerLook()).isEqualTo(25);
        assertThat(sent).as("at most 20 a second over 300 s").isLessThanOrEqualTo(20 * 300 + 25);
        assertThat(sent).as("the budget is used while partitions are due").isGreaterThanOrEqualTo(20 * 290);
        assertThat(sentAt).as("every partition had heartbeats").hasSize(1_200);
        for (List<Long> times : sentAt.values()) {
            assertThat(times.get(0)).as("first heartbeat within 1,200 / 20 s plus an interval")
                    .isLessThanOrEqualTo(65 * SECOND);
            for (int i = 1; i < times.size(); i++) {
                assertThat(times.get(i) - times.get(i - 1)).as("gap between heartbeats of one partition")
                        .isBetween(5 * SECOND, 62 * SECOND);
            }
        }
    }

    @Test
    void theBudgetGoesToThePartitionsQuietTheLongest() {
        List<TopicPartition> partitions = partitions(200); // interval 4 s: 20 per look
        for (int i = 0; i < partitions.size(); i++) {
            schedule.batchMade(partitions.get(i), i * SECOND / 100);
        }
        TopicPartition neverMade = new TopicPartition("orders", 999);
        List<TopicPartition> all = new ArrayList<>(partitions);
        all.add(neverMade);

        List<TopicPartition> picked = schedule.pick(all, 10 * SECOND, tp -> true);

        assertThat(picked).hasSize(20).startsWith(neverMade).containsAll(partitions.subList(0, 19));
    }

    private static List<TopicPartition> partitions(int count) {
        List<TopicPartition> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new TopicPartition("orders", i));
        }
        return out;
    }
}
