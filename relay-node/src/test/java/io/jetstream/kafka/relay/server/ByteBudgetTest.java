package io.jetstream.kafka.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;

import io.prometheus.metrics.core.metrics.Gauge;
import org.junit.jupiter.api.Test;

class ByteBudgetTest {

    private final Gauge bytes = Gauge.builder().name("bytes").build();
    private final Gauge batches = Gauge.builder().name("batches").build();
    private final ByteBudget budget = new ByteBudget(100, bytes, batches);

    @Test
    void reservesUpToTheLimitAndNeverBeyond() {
        assertThat(budget.tryReserve(60)).isTrue();
        assertThat(budget.tryReserve(41)).as("would exceed 100").isFalse();
        assertThat(budget.tryReserve(40)).isTrue();

        assertThat(budget.reservedBytes()).isEqualTo(100);
        assertThat(budget.batches()).isEqualTo(2);
        assertThat(bytes.get()).isEqualTo(100);
        assertThat(batches.get()).isEqualTo(2);
    }

    @Test
    void releaseGivesTheRoomBackAndUpdatesTheGauges() {
        budget.tryReserve(60);
        budget.release(60);

        assertThat(budget.isEmpty()).isTrue();
        assertThat(bytes.get()).isZero();
        assertThat(batches.get()).isZero();
        assertThat(budget.tryReserve(100)).isTrue();
    }

    @Test
    void whenEmptyCompletesWithTheLastRelease() {
        assertThat(budget.whenEmpty()).isDone();
        budget.tryReserve(10);
        budget.tryReserve(10);

        CompletableFuture<Void> empty = budget.whenEmpty();
        budget.release(10);
        assertThat(empty).isNotDone();
        budget.release(10);

        assertThat(empty).isDone();
    }

    @Test
    void overReleaseIsABug() {
        budget.tryReserve(10);
        budget.release(10);

        assertThatThrownBy(() -> budget.release(10)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("released more than reserved");
    }

    @Test
    void rejectsNonPositiveSizes() {
        assertThatThrownBy(() -> budget.tryReserve(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ByteBudget(0, bytes, batches)).isInstanceOf(IllegalArgumentException.class);
    }
}
