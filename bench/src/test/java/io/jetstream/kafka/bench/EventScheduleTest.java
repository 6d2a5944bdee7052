package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventScheduleTest {

    @Test
    void coldStartRestartsTheTasksThenKillsAndRestartsTheRelayOfARoute() {
        EventSchedule three = EventSchedule.coldStart(false, 40_000_000L, 3);
        assertThat(three.events()).extracting(BenchEvent::kind).containsExactly(BenchEvent.Kind.RESTART_TASKS,
                BenchEvent.Kind.KILL_RELAY, BenchEvent.Kind.START_RELAY);
        assertThat(three.events().get(1).host()).isEqualTo("a2");
        assertThat(EventSchedule.coldStart(true, 40_000_000L, 1).events().get(1).host()).isEqualTo("a1");
        // 25% of one 40 Mbit/s uplink of ~650-byte records
        assertThat(three.ratePerS()).isBetween(1500.0, 2000.0);
        assertThat(EventSchedule.coldStart(true, 40_000_000L, 3).duration()).isLessThan(three.duration());
    }

    @Test
    void capacityChangeLowersOneRouteToAQuarterAndRaisesItBack() {
        EventSchedule schedule = EventSchedule.capacityChange(false, 10_000_000L);
        BenchEvent lower = schedule.events().get(0);
        BenchEvent raise = schedule.events().get(1);
        assertThat(lower.kind().network()).isTrue();
        assertThat(lower.value()).isEqualTo(2_500_000L);
        assertThat(raise.value()).isEqualTo(10_000_000L);
        assertThat(schedule.changedRoute()).isEqualTo("via-a2");
        assertThat(schedule.bestSplitAfter(lower)).containsEntry("via-a2", 0.111).containsEntry("direct", 0.444);
        assertThat(schedule.bestSplitAfter(raise)).containsEntry("via-a2", 0.333);
        // then another route's delay grows and shrinks back: the cap events' split is still proportional
        BenchEvent delay = schedule.events().get(2);
        BenchEvent undelay = schedule.events().get(3);
        assertThat(delay.kind()).isEqualTo(BenchEvent.Kind.SET_EXTRA_DELAY);
        assertThat(delay.kind().network()).isTrue();
        assertThat(delay.host()).isEqualTo("a3");
        assertThat(delay.extraDelay()).isEqualTo(Duration.ofMillis(40));
        assertThat(delay.at()).isGreaterThan(raise.at());
        assertThat(undelay.extraDelay()).isZero();
        // 60% of 30 Mbit/s: direct and via-a2 at 80% carry 16 Mbit/s, the delayed via-a3 the ~2 left
        assertThat(schedule.bestSplitAfter(delay))
                .hasEntrySatisfying("direct", share -> assertThat(share).isBetween(0.44, 0.45))
                .hasEntrySatisfying("via-a3", share -> assertThat(share).isBetween(0.1, 0.12));
        assertThat(schedule.bestSplitAfter(undelay)).containsEntry("via-a3", 0.333);
        EventSchedule quick = EventSchedule.capacityChange(true, 5_000_000L);
        assertThat(quick.events()).extracting(BenchEvent::name).containsExactly("lower-a2", "raise-a2", "delay-a3");
        assertThat(quick.duration()).isLessThan(schedule.duration());
        // 60% of the three uplinks: 80% of what is left with one at a quarter
        double capacity = 3 * EventSchedule.recordsPerSecondPerUplink(10_000_000L);
        assertThat(schedule.ratePerS() / capacity).isBetween(0.55, 0.65);
    }

    @Test
    void eventsMustFallInsideTheLoadAndNameWhatTheyNeed() {
        assertThatThrownBy(() -> new EventSchedule(100, Duration.ofSeconds(10),
                List.of(BenchEvent.restartTasks("late", Duration.ofSeconds(10))), "", java.util.Map.of()))
                .hasMessageContaining("late");
        assertThatThrownBy(() -> new BenchEvent("x", Duration.ZERO, BenchEvent.Kind.KILL_RELAY, "", 0))
                .hasMessageContaining("needs a host");
        assertThatThrownBy(() -> new BenchEvent("x", Duration.ZERO, BenchEvent.Kind.SET_EXTRA_DELAY, "a3", -1))
                .hasMessageContaining("extra delay");
    }

    @Test
    void theScenariosWithEventsHaveTheirOwnVariantsOutputAndNetwork() {
        BenchPlan cold = BenchPlan.defaults("wan", BenchPlan.Load.COLD_START, false, Path.of("out"), "cmd");
        assertThat(cold.variants()).containsExactlyElementsOf(Variants.coldStartRun());
        assertThat(cold.outputName()).isEqualTo("wan-cold-start");
        assertThat(cold.eventSchedule(3)).isPresent();
        BenchPlan capacity = BenchPlan.defaults("wan", BenchPlan.Load.CAPACITY_CHANGE, true, Path.of("out"), "cmd");
        assertThat(capacity.outputName()).isEqualTo("wan-capacity-change-quick");
        assertThat(capacity.variants()).containsExactly(Variants.JS_3_ROUTES);
        assertThat(capacity.uplinkBitsPerSecond()).isEqualTo(5_000_000L);
        assertThat(BenchPlan.defaults("wan", BenchPlan.Load.STEADY, true, Path.of("out"), "cmd").eventSchedule(3))
                .isEmpty();
        assertThatThrownBy(() -> capacity.withVariants(List.of(Variants.JS_1_ROUTE)))
                .hasMessageContaining("--variants").hasMessageContaining("three routes");
        assertThatThrownBy(() -> cold.withVariants(List.of(Variants.MM2_TUNED_SRC)))
                .hasMessageContaining("needs JetStream");
    }
}
