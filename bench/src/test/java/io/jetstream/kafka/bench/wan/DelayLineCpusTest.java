package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DelayLineCpusTest {

    @Test
    void theDelayLineTakesTheFirstCpuAndPacketsGoToTheOthers() {
        assertThat(DelayLineCpus.of(List.of(1, 0))).isEqualTo(new DelayLineCpus(OptionalInt.of(0), "2"));
        assertThat(DelayLineCpus.of(List.of(2, 3, 5))).isEqualTo(new DelayLineCpus(OptionalInt.of(2), "28"));
    }

    @Test
    void oneCpuIsLeftAlone() {
        assertThat(DelayLineCpus.of(List.of(3))).isEqualTo(DelayLineCpus.NONE);
        assertThat(DelayLineCpus.of(List.of())).isEqualTo(DelayLineCpus.NONE);
    }

    @Test
    void masksOfManyCpusAreGroupedByThirtyTwo() {
        assertThat(DelayLineCpus.rpsMask(DelayLineCpus.parseCpuList("1-39"))).isEqualTo("ff,fffffffe");
        assertThat(DelayLineCpus.rpsMask(List.of(32))).isEqualTo("1,00000000");
    }

    @Test
    void parsesKernelCpuLists() {
        assertThat(DelayLineCpus.parseCpuList("0-1\n")).containsExactly(0, 1);
        assertThat(DelayLineCpus.parseCpuList("0,2-4,7")).containsExactly(0, 2, 3, 4, 7);
        assertThatThrownBy(() -> DelayLineCpus.parseCpuList("3-1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thisProcessGetsAnAnswer() {
        DelayLineCpus cpus = DelayLineCpus.forThisProcess();

        assertThat(cpus.delayLineCpu().isPresent()).isEqualTo(!cpus.rpsMask().isEmpty());
    }
}
