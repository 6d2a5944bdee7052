package io.jetstream.kafka.relay.datapath;

import java.util.concurrent.atomic.AtomicLong;

import io.jetstream.kafka.relay.server.ByteBudget;

/**
 * The one owner of the relay's buffer budget ({@code buffer.max.bytes}) and of each upstream
 * connection's budget ({@code buffer.max.bytes.per.connection}): every byte of either is reserved
 * and returned here. A frame's bytes are reserved in both at once ({@link Account#tryReserve}); the
 * {@link Reservation} that comes back travels with the frame (parked, then in its
 * {@link PendingEntry}) and returns its bytes itself: part of them once the frame has been written
 * downstream ({@link Reservation#keepOnly}), the rest exactly once ({@link Reservation#release}),
 * whichever path ends the frame (answer, NACK, timeout, lost downstream, closed connection,
 * shutdown). Every return wakes the connection's handler and the upstreams waiting for room.
 *
 * <p>Thread-safe: reservations are made on the connection's event loop, returns come from any
 * thread.
 */
final class BufferBudgets {

    private final ByteBudget relay;
    private final Waiters roomWaiters;

    /**
     * @param relay       the relay's budget (its gauges are {@code jetstream_relay_buffered_bytes}
     *                    and {@code jetstream_relay_inflight_batches})
     * @param roomWaiters upstreams to wake when bytes return
     */
    BufferBudgets(ByteBudget relay, Waiters roomWaiters) {
        this.relay = relay;
        this.roomWaiters = roomWaiters;
    }

    /** Opens the budget of one upstream connection, whose handler is woken whenever its bytes return. */
    Account open(Waiter owner, long connectionMaxBytes) {
        return new Account(owner, ByteBudget.unmetered(connectionMaxBytes));
    }

    /** One upstream connection's budget, within the relay's. */
    final class Account {

        private final Waiter owner;
        private final ByteBudget connection;

        private Account(Waiter owner, ByteBudget connection) {
            this.owner = owner;
            this.connection = connection;
        }

        /** Most bytes one frame may be charged: the connection's whole budget. */
        long maxBytes() {
            return connection.maxBytes();
        }

        /**
         * Reserves {@code bytes} in the connection's budget and the relay's; on the owner's event loop.
         *
         * @return null, reserving nothing, when either is full: the owner is woken when bytes return
         */
        Reservation tryReserve(long bytes) {
            if (!connection.tryReserve(bytes)) {
                return null; // the connection's own returns wake its owner
            }
            if (!relay.tryReserve(bytes)) {
                connection.release(bytes);
                roomWaiters.add(owner);
                // Re-check after registering, so a return in between is not missed.
                if (!relay.tryReserve(bytes)) {
                    return null;
                }
                // Only the owner's event loop reserves from the connection budget, and returns only add room.
                connection.tryReserve(bytes);
            }
            return new Reservation(this, bytes);
        }

        /**
         * Whether both budgets have room for more; if the relay's has none, the owner is registered
         * to be woken when bytes return. On the owner's event loop.
         */
        boolean hasRoom() {
            if (connection.reservedBytes() >= connection.maxBytes()) {
                return false;
            }
            if (relay.reservedBytes() >= relay.maxBytes()) {
                roomWaiters.add(owner);
                // Re-check after registering, so a return in between is not missed.
                return relay.reservedBytes() < relay.maxBytes();
            }
            return true;
        }

        /** The connection closed: its owner waits for room no more. */
        void close() {
            roomWaiters.remove(owner);
        }

        private void returnPart(long bytes) {
            connection.releasePart(bytes);
            relay.releasePart(bytes);
            wake(true);
        }

        private void returnRest(long bytes, boolean wakeOwner) {
            connection.release(bytes);
            relay.release(bytes);
            wake(wakeOwner);
        }

        private void wake(boolean wakeOwner) {
            if (wakeOwner) {
                owner.wake();
            }
            roomWaiters.wakeAll();
        }
    }

    /** The bytes one frame holds in an {@link Account} and the relay's budget. Thread-safe. */
    static final class Reservation {

        private static final long RELEASED = -1;

        private final Account account;
        private final long bytes;
        /** Bytes still held, or {@link #RELEASED}. */
        private final AtomicLong held;

        private Reservation(Account account, long bytes) {
            this.account = account;
            this.bytes = bytes;
            this.held = new AtomicLong(bytes);
        }

        /** The bytes reserved. */
        long bytes() {
            return bytes;
        }

        /**
         * Returns all but {@code kept} bytes while the frame stays held (it left the relay's memory
         * but awaits its answer). Only the first call while everything is held returns anything:
         * none after {@link #release}, and none twice. Any thread.
         */
        void keepOnly(long kept) {
            long part = bytes - kept;
            if (part > 0 && held.compareAndSet(bytes, kept)) {
                account.returnPart(part);
            }
        }

        /**
         * Returns every byte still held and wakes the owner; the first call of this or
         * {@link #releaseByOwner} does, later ones do nothing. Any thread.
         */
        void release() {
            release(true);
        }

        /**
         * As {@link #release}, by the owner on its event loop while it handles its frames (it
         * answered one at once, or its connection closed): the owner is not woken, it re-checks
         * by itself.
         */
        void releaseByOwner() {
            release(false);
        }

        private void release(boolean wakeOwner) {
            long rest = held.getAndSet(RELEASED);
            if (rest != RELEASED) {
                account.returnRest(rest, wakeOwner);
            }
        }
    }
}
