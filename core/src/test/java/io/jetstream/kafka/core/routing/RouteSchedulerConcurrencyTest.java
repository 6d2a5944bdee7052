package io.jetstream.kafka.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Several event loops choosing and acknowledging at once never overspend nor lose bytes in flight. */
class RouteSchedulerConcurrencyTest {

    @Test
    void concurrentCallersRespectTheCapAndTheAccounts() throws Exception {
        List<TestRoute> routes = List.of(new TestRoute("a", List.of("b1"), 0.02, 0),
                new TestRoute("b", List.of("a2", "b1"), 0.02, 0), new TestRoute("c", List.of("c1", "b1"), 0.09, 0.5));
        double cap = 0.01;
        RouteScheduler<TestRoute> scheduler = new RouteScheduler<>(routes,
                RouteSchedulerSettings.builder().spendCap(SpendCap.total(cap)).build());
        AtomicLong clock = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService loops = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new java.util.ArrayList<>();
            for (int loop = 0; loop < 4; loop++) {
                done.add(loops.submit(() -> {
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        long now = clock.addAndGet(1_000);
                        Optional<TestRoute> route = scheduler.choose(65_536, now);
                        if (route.isEmpty()) {
                            continue;
                        }
                        sent.addAndGet(65_536);
                        scheduler.onAcked(route.get(), 65_536, now, now + 500);
                        assertThat(scheduler.snapshot(now).spentTotal()).isLessThanOrEqualTo(cap);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            loops.shutdownNow();
        }
        SchedulerSnapshot snapshot = scheduler.snapshot(clock.get());
        assertThat(snapshot.spentTotal()).isLessThanOrEqualTo(cap);
        assertThat(snapshot.routes().stream().mapToLong(RouteStats::inFlightBytes).sum()).isZero();
        assertThat(snapshot.routes().stream().mapToLong(RouteStats::bytesAcked).sum()).isEqualTo(sent.get());
        assertThat(snapshot.routes().stream().mapToDouble(RouteStats::moneySpent).sum())
                .isCloseTo(snapshot.spentTotal(), org.assertj.core.api.Assertions.within(1e-12));
    }
}
