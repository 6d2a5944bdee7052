package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
