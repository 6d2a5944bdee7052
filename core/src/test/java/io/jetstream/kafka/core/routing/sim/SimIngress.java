package io.jetstream.kafka.core.routing.sim;

import io.jetstream.kafka.core.routing.RouteScheduler;
import io.jetstream.kafka.core.routing.TestRoute;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

/**
 * An ingress relay following a {@link RouteScheduler} over {@link SimRoute}s. Batches of a fixed
 * wire size arrive either at a fixed offered rate or as a backlog (the ingress keeps a fixed number
 * of bytes in flight: saturating load); optionally at most a number of batches are in flight (the
 * sender's window), the rest wait at the ingress. Each batch is sent on the chosen route; its ack comes back
 * over the route's reverse link; a batch without ack after {@code ackTimeout} is reported
 * (a NACK) and sent again. Heartbeats measure each route's RTT every second.
 */
public final class SimIngress {

    private record Batch(long id, long createdAt) {
    }

    private final SimLoop loop;
    private final RouteScheduler<TestRoute> scheduler;
    private final List<SimRoute> routes;
    private final int batchBytes;
    private final long ackTimeoutNanos;
    private final ArrayDeque<Batch> waiting = new ArrayDeque<>();
    private final Map<Long, TestRoute> outstanding = new HashMap<>();
    private long nextId;
    private boolean retryScheduled;
    private final Random random = new Random(17);
    private long inFlightBytes;
    private int inFlightBatches;
    private int maxInFlightBatches = Integer.MAX_VALUE;
    private boolean heartbeats = true;
    private boolean receipts;
    private final java.util.Set<Long> received = new java.util.HashSet<>();
    private long backlogWindowBytes;
    private Consumer<SimIngress> afterChoice = s -> { };

    public SimIngress(SimLoop loop, RouteScheduler<TestRoute> scheduler, List<SimRoute> routes, int batchBytes,
                      long ackTimeoutNanos) {
        this.loop = loop;
        this.scheduler = scheduler;
        this.routes = routes;
        this.batchBytes = batchBytes;
        this.ackTimeoutNanos = ackTimeoutNanos;
        loop.at(0, this::heartbeats); // the first heartbeat is the connection handshake
    }

    private void heartbeats() {
        if (!heartbeats) {
            return;
        }
        routes.forEach(this::heartbeat);
        loop.after(SimLoop.seconds(1), this::heartbeats);
    }

    /** Keeps {@code windowBytes} in flight from now on: a backlog that saturates the routes. */
    public void saturate(long windowBytes) {
        backlogWindowBytes = windowBytes;
        fillWindow();
    }

    /** Offers {@code bytesPerSecond} in batches at even intervals from {@code fromNanos} to {@code toNanos}. */
    public void offer(double bytesPerSecond, long fromNanos, long toNanos) {
        long interval = (long) (batchBytes * 1e9 / bytesPerSecond);
        for (long t = fromNanos; t < toNanos; t += interval) {
            loop.at(t, () -> {
                waiting.addLast(new Batch(nextId++, loop.nanoTime()));
                dispatch();
            });
        }
    }

    /**
     * Offers {@code bytesPerSecond} in bursts: every {@code burstInterval} nanoseconds from
     * {@code fromNanos} to {@code toNanos}, the batches of one interval arrive at once (a sender
     * that flushes several partitions' batches together).
     */
    public void offerBursts(double bytesPerSecond, long burstIntervalNanos, long fromNanos, long toNanos) {
        double perBurst = bytesPerSecond * burstIntervalNanos / 1e9 / batchBytes;
        double owed = 0;
        for (long t = fromNanos; t < toNanos; t += burstIntervalNanos) {
            owed += perBurst;
            int batches = (int) owed;
            owed -= batches;
            loop.at(t, () -> {
                for (int i = 0; i < batches; i++) {
                    waiting.addLast(new Batch(nextId++, loop.nanoTime()));
                }
                dispatch();
            });
        }
    }

    /** At most {@code batches} in flight from now on; arrivals beyond wait at the ingress. */
    public SimIngress window(int batches) {
        this.maxInFlightBatches = batches;
        return this;
    }

    /**
     * No heartbeat RTT samples (as the relay's scheduling chooser before it fed them): the
     * scheduler sees round trips only through acks.
     */
    public SimIngress withoutHeartbeats() {
        this.heartbeats = false;
        return this;
    }

    /**
     * The egress relay sends a receipt when a batch arrives, before the destination's delay
     * ({@link SimRoute#farEndJitter}): the scheduler times routes by it and settles the answer.
     */
    public SimIngress withReceipts() {
        this.receipts = true;
        return this;
    }

    /** Runs after every choice, e.g. to check an invariant. */
    public void afterEachChoice(Consumer<SimIngress> check) {
        this.afterChoice = check;
    }

    private void fillWindow() {
        while (backlogWindowBytes > 0 && inFlightBytes + waiting.size() * (long) batchBytes < backlogWindowBytes) {
            waiting.addLast(new Batch(nextId++, loop.nanoTime()));
        }
        dispatch();
    }

    private void dispatch() {
        while (!waiting.isEmpty() && inFlightBatches < maxInFlightBatches) {
            long now = loop.nanoTime();
            Optional<TestRoute> chosen = scheduler.choose(batchBytes, now);
            afterChoice.accept(this);
            if (chosen.isEmpty()) {
                if (!retryScheduled) {
                    retryScheduled = true;
                    loop.after(SimLoop.millis(10), () -> {
                        retryScheduled = false;
                        dispatch();
                    });
                }
                return;
            }
            send(waiting.pollFirst(), route(chosen.get()), now);
        }
    }

    private void send(Batch batch, SimRoute route, long sentAt) {
        inFlightBytes += batchBytes;
        inFlightBatches++;
        route.bytesChosen += batchBytes;
        outstanding.put(batch.id(), route.spec);
        route.forward.send(batchBytes, arrivedAt -> {
            route.bytesDelivered += batchBytes;
            if (receipts) {
                route.backward.send(16, receivedAt -> {
                    if (route.spec.equals(outstanding.get(batch.id())) && received.add(batch.id())) {
                        scheduler.onReceived(route.spec, batchBytes, sentAt, receivedAt);
                    }
                });
            }
            loop.at(route.ackLeavesAt(arrivedAt),
                    () -> route.backward.send(16, ackedAt -> acked(batch, route, sentAt, ackedAt)));
        });
        loop.at(sentAt + ackTimeoutNanos, () -> {
            if (route.spec.equals(outstanding.get(batch.id())) && outstanding.remove(batch.id()) != null) {
                inFlightBytes -= batchBytes;
                inFlightBatches--;
                if (received.remove(batch.id())) {
                    scheduler.onSettled(route.spec, batchBytes, false, loop.nanoTime());
                } else {
                    scheduler.onNack(route.spec, batchBytes, loop.nanoTime());
                }
                waiting.addFirst(batch);
                dispatch();
            }
        });
    }

    private void acked(Batch batch, SimRoute route, long sentAt, long ackedAt) {
        if (outstanding.remove(batch.id()) == null) {
            return; // already timed out and re-sent
        }
        inFlightBytes -= batchBytes;
        inFlightBatches--;
        if (received.remove(batch.id())) {
            scheduler.onSettled(route.spec, batchBytes, true, ackedAt);
        } else {
            scheduler.onAcked(route.spec, batchBytes, sentAt, ackedAt);
        }
        fillWindow();
    }

    private void heartbeat(SimRoute route) {
        if (!route.forward.isCut()) {
            long jitter = (long) (random.nextDouble() * 2 * route.jitterNanos);
            scheduler.onRttSample(route.spec, 2 * route.forward.delayNanos() + jitter, loop.nanoTime());
        }
    }

    private SimRoute route(TestRoute spec) {
        return routes.stream().filter(r -> r.spec.name().equals(spec.name())).findFirst().orElseThrow();
    }

    public RouteScheduler<TestRoute> scheduler() {
        return scheduler;
    }

    public SimLoop loop() {
        return loop;
    }
}
