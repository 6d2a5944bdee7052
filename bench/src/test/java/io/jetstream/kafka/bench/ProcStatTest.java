package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatTest {

    @Test
    void processTicksAreUserPlusSystemTime() {
        String stat = "4242 (java) S 1 4242 4242 0 -1 4194560 94215 0 12 0 1520 315 0 0 20 0 38 0 1234 "
                + "5000000000 150000 18446744073709551615 1 1 0 0 0 0 0 0 16800975 0 0 0 17 1 0 0 0 0 0";
        assertThat(ProcStat.processTicks(stat)).isEqualTo(1520 + 315);
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
        String stat = "77 (my (odd) name) R 1 77 77 0 -1 0 0 0 0 0 10 5 0 0 20 0 1 0 99 0 0";
        assertThat(ProcStat.processTicks(stat)).isEqualTo(15);
    }

    @Test
    void aTruncatedLineIsRejectedWithItsText() {
        assertThatThrownBy(() -> ProcStat.processTicks("12 (x) S 1 2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("12 (x) S 1 2");
        assertThatThrownBy(() -> ProcStat.processTicks("garbage")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyHotSpotsJitCompilerThreadsCountAsJit() {
        assertThat(ProcStat.isJitCompilerThread("4242 (C2 CompilerThre) S 1 2 3 4 5 6 7 8 9 10 11 12 13")).isTrue();
        assertThat(ProcStat.isJitCompilerThread("4243 (C1 CompilerThre) S 1 2 3")).isTrue();
        assertThat(ProcStat.isJitCompilerThread("4244 (task-thread-js-) S 1 2 3")).isFalse();
        assertThat(ProcStat.isJitCompilerThread("4245 (GC Thread#0) S 1 2 3")).isFalse();
        assertThat(ProcStat.isJitCompilerThread("garbage")).isFalse();
    }

    @Test
    void aMissingProcessHasNoJitTicks() {
        assertThat(ProcStat.readJitTicks(-1)).isZero();
        assertThat(ProcStat.readJitTicks(Integer.MAX_VALUE)).isZero();
    }

    @Test
    void machineTicksCountIdleAndIowaitAsNotBusyAndGuestTimeOnce() {
        String procStat = "cpu  100 20 30 400 50 6 4 10 7 3\n"
                + "cpu0 50 10 15 200 25 3 2 5 7 3\n"
                + "intr 123\n";
        ProcStat.MachineTicks ticks = ProcStat.machineTicks(procStat);
        // total = user..steal; guest (7) and guest_nice (3) are already in user and nice
        assertThat(ticks.total()).isEqualTo(100 + 20 + 30 + 400 + 50 + 6 + 4 + 10);
        assertThat(ticks.busy()).isEqualTo(ticks.total() - 400 - 50);
    }

    @Test
    void procStatWithoutAnAggregateLineIsRejected() {
        assertThatThrownBy(() -> ProcStat.machineTicks("cpu0 1 2 3 4\n")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thisProcessHasTicksAndAMissingOneHasNone() {
        assertThat(ProcStat.readProcessTicks(ProcessHandle.current().pid())).isPresent();
        assertThat(ProcStat.readProcessTicks(-1)).isEmpty();
        assertThat(ProcStat.ticksPerSecond()).isPositive();
    }
}
