package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HangingTransactionWatchesTest {

    private final HangingTransactionWatches watches = new HangingTransactionWatches();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();
    private final List<HangingTransactionAborter> all = new ArrayList<>();
    private final List<ScheduledExecutorService> executors = new ArrayList<>();

    /** A check on a cluster that never answers: it ends only when closed (or after the unheld limit). */
    private HangingTransactionAborter start(HangingTransactionAborter.Listener listener) {
        started.incrementAndGet();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        executors.add(executor);
        HangingTransactions transactions = new HangingTransactions(new HangingTransactions.Cluster() {
            @Override
            public List<TopicPartition> partitions() throws Exception {
                throw new Exception("down");
            }

            @Override
            public Map<TopicPartition, List<org.apache.kafka.clients.admin.ProducerState>> producers(
                    List<TopicPartition> partitions) {
                return Map.of();
            }

            @Override
            public Map<Long, String> transactionalIds() {
                return Map.of();
            }

            @Override
            public java.util.Set<String> connectGroups() {
                return java.util.Set.of();
            }

            @Override
            public Map<String, org.apache.kafka.clients.admin.TransactionDescription> describe(
                    java.util.Collection<String> ids) {
                return Map.of();
            }

            @Override
            public void abort(org.apache.kafka.clients.admin.AbortTransactionSpec spec) {
            }
        }, "sink", Duration.ZERO, System::currentTimeMillis);
        HangingTransactionAborter check = new HangingTransactionAborter(transactions, Duration.ofHours(1), listener,
                closed::incrementAndGet, executor, Duration.ofSeconds(5), System::nanoTime, "sink");
        all.add(check);
        return check;
    }

    @AfterEach
    void closeAll() {
        all.forEach(HangingTransactionAborter::close);
        executors.forEach(ScheduledExecutorService::shutdownNow);
    }

    @Test
    void theNextInstanceWithTheSameConfigTakesOverTheReleasedCheck() {
        HangingTransactionAborter.Listener first = aborted -> { };
        HangingTransactionAborter.Listener second = aborted -> { };
        HangingTransactionAborter check = watches.hold("sink", Map.of("k", "v"), this::start, first);
        check.release(first);

        HangingTransactionAborter again = watches.hold("sink", Map.of("k", "v"), this::start, second);

        assertThat(again).isSameAs(check);
        assertThat(started.get()).isEqualTo(1);
        assertThat(closed.get()).isZero();
    }

    @Test
    void anotherConfigurationClosesTheOldCheckAndStartsANewOne() {
        HangingTransactionAborter.Listener first = aborted -> { };
        HangingTransactionAborter check = watches.hold("sink", Map.of("k", "v"), this::start, first);
        check.release(first);

        HangingTransactionAborter other = watches.hold("sink", Map.of("k", "w"), this::start, aborted -> { });

        assertThat(other).isNotSameAs(check);
        assertThat(check.ended()).isTrue();
        assertThat(closed.get()).isEqualTo(1);
        assertThat(watches.size()).isEqualTo(1);
    }

    @Test
    void anEndedCheckIsForgottenAndReplaced() {
        HangingTransactionAborter.Listener first = aborted -> { };
        HangingTransactionAborter check = watches.hold("sink", Map.of(), this::start, first);
        check.close();

        HangingTransactionAborter next = watches.hold("sink", Map.of(), this::start, aborted -> { });

        assertThat(next).isNotSameAs(check);
        assertThat(started.get()).isEqualTo(2);
    }

    @Test
    void connectorsOfOtherNamesHaveChecksOfTheirOwn() {
        HangingTransactionAborter a = watches.hold("a", Map.of(), this::start, aborted -> { });
        HangingTransactionAborter b = watches.hold("b", Map.of(), this::start, aborted -> { });

        assertThat(a).isNotSameAs(b);
        assertThat(watches.size()).isEqualTo(2);
    }
}
