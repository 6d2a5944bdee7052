package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.relay.server.ByteBudget;
import org.junit.jupiter.api.Test;

/** The one owner of the buffer budgets: what a reservation returns, when, and whom it wakes. */
class BufferBudgetsTest {

    /** Counts its wake-ups. */
    private static final class CountingWaiter implements Waiter {
        int wakes;

        @Override
        public void wake() {
            wakes++;
        }
    }

    private final ByteBudget relay = ByteBudget.unmetered(1_000);
    private final Waiters roomWaiters = new Waiters();
    private final BufferBudgets budgets = new BufferBudgets(relay, roomWaiters);
    private final CountingWaiter owner = new CountingWaiter();
    private final BufferBudgets.Account account = budgets.open(owner, 600);

    @Test
    void aReservationReturnsItsWirePartOnceAndTheRestExactlyOnce() {
        BufferBudgets.Reservation reservation = account.tryReserve(500);

        reservation.keepOnly(100);
        reservation.keepOnly(100);
        assertThat(relay.reservedBytes()).isEqualTo(100);
        assertThat(relay.batches()).isEqualTo(1);

        reservation.release();
        reservation.release();
        reservation.releaseByOwner();
        reservation.keepOnly(100);
        assertThat(relay.reservedBytes()).isZero();
        assertThat(relay.batches()).isZero();
        assertThat(account.tryReserve(600)).as("the connection's budget is whole again").isNotNull();
    }

    @Test
    void aFullRelayBudgetRefusesAndWakesTheWaiterWhenBytesReturn() {
        CountingWaiter other = new CountingWaiter();
        BufferBudgets.Reservation held = budgets.open(other, 600).tryReserve(600);

        assertThat(account.tryReserve(500)).as("the relay has 400 bytes left").isNull();
        assertThat(relay.reservedBytes()).isEqualTo(600);
        assertThat(roomWaiters.size()).isEqualTo(1);

        held.release();
        assertThat(owner.wakes).isEqualTo(1);
        assertThat(other.wakes).as("a release from elsewhere wakes the reservation's owner").isEqualTo(1);
        assertThat(account.tryReserve(500)).isNotNull();
    }

    @Test
    void theOwnerReleasingOnItsOwnLoopIsNotWoken() {
        BufferBudgets.Reservation reservation = account.tryReserve(500);

        reservation.releaseByOwner();

        assertThat(owner.wakes).isZero();
        assertThat(relay.isEmpty()).isTrue();
    }

    @Test
    void hasRoomUntilEitherBudgetIsFull() {
        assertThat(account.hasRoom()).isTrue();
        account.tryReserve(600);
        assertThat(account.hasRoom()).as("the connection's budget is full").isFalse();
    }
}
