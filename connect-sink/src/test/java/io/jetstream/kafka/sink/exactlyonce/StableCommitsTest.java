package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Checks are run by the test (the executor takes no work), on a clock the test moves. */
class StableCommitsTest {

    private static final TopicPartition ORIGIN = new TopicPartition("orders", 0);
    private static final TopicPartition OTHER = new TopicPartition("orders", 1);
    private static final TopicPartition DEST = new TopicPartition("A.orders", 0);
    private static final TopicPartition DEST_OTHER = new TopicPartition("A.orders", 1);

    private final Map<TopicPartition, Long> lso = new HashMap<>();
    private final List<String> released = new ArrayList<>();
    private final List<List<TopicPartition>> asked = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private boolean unreadable;
    private boolean markersPending;
    private final List<TopicPartition> markersAsked = new ArrayList<>();
    private final ScheduledExecutorService noWork = Executors.newSingleThreadScheduledExecutor();
    private final StableCommits commits;

    StableCommitsTest() {
        noWork.shutdown();
        commits = new StableCommits(new StableCommits.StableOffsets() {
            @Override
            public Map<TopicPartition, Long> lastStableOffsets(List<TopicPartition> destinations) {
                asked.add(destinations);
                if (unreadable) {
                    throw new IllegalStateException("broker down");
                }
                Map<TopicPartition, Long> out = new HashMap<>();
                destinations.forEach(tp -> out.put(tp, lso.getOrDefault(tp, 0L)));
                return out;
            }

            @Override
            public boolean markersPending(TopicPartition destination, long heldOffset) {
                markersAsked.add(destination);
                return markersPending;
            }
        }, (origin, offset, topicId) -> released.add(origin + "@" + offset + "/" + topicId),
                Duration.ofMillis(20), Duration.ofSeconds(30), now::get, noWork);
    }

    @AfterEach
    void close() {
        commits.close();
    }

    @Test
    void aTransactionIsReleasedOnlyOnceTheStableOffsetPassesItsLastRecord() {
        commits.written(ORIGIN, 10, "id", DEST, 100);
        commits.written(ORIGIN, 11, "id", DEST, 101);
        commits.check();
        assertThat(asked).as("nothing committed yet").isEmpty();
        commits.committed();
        lso.put(DEST, 101L);
        commits.check();
        assertThat(released).as("offset 101 not yet stable").isEmpty();
        lso.put(DEST, 102L);
        commits.check();
        assertThat(released).containsExactly("orders-0@11/id");
        assertThat(commits.waiting()).isZero();
    }

    @Test
    void transactionsAreReleasedInOrderAndPartitionsIndependently() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.written(OTHER, 5, null, DEST_OTHER, 50);
        commits.committed();
        commits.written(ORIGIN, 20, null, DEST, 110);
        commits.committed();
        assertThat(commits.waiting()).isEqualTo(3);
        lso.put(DEST, 111L);
        commits.check();
        assertThat(released).containsExactly("orders-0@20/null");
        lso.put(DEST_OTHER, 51L);
        commits.check();
        assertThat(released).containsExactly("orders-0@20/null", "orders-1@5/null");
    }

    @Test
    void aRecordDroppedBeforeWritingDoesNotReleaseTheTransactionsWrittenRecords() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.written(ORIGIN, 11, null, null, -1);
        commits.committed();
        commits.check();
        assertThat(released).isEmpty();
        lso.put(DEST, 101L);
        commits.check();
        assertThat(released).containsExactly("orders-0@11/null");
    }

    @Test
    void anUnreadableStableOffsetKeepsEverythingWaitingAndIsNeverTakenForAHang() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.committed();
        unreadable = true;
        now.addAndGet(Duration.ofMinutes(5).toNanos());
        commits.check();
        assertThat(released).isEmpty();
        assertThat(commits.failure()).isNull();
        unreadable = false;
        lso.put(DEST, 101L);
        commits.check();
        assertThat(released).containsExactly("orders-0@10/null");
    }

    @Test
    void aBrokerBackFromAnOutageGetsTheWholeTimeoutToCompleteItsTransactions() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.committed();
        unreadable = true;
        now.addAndGet(Duration.ofSeconds(40).toNanos());
        commits.check();
        unreadable = false; // back, its coordinator still writing the markers
        lso.put(DEST, 90L);
        commits.check();
        assertThat(commits.failure()).as("committed 40 s ago, but readable only now").isNull();
        now.addAndGet(Duration.ofSeconds(20).toNanos());
        commits.check();
        assertThat(commits.failure()).isNull();
        lso.put(DEST, 101L);
        commits.check();
        assertThat(released).containsExactly("orders-0@10/null");
        assertThat(commits.failure()).isNull();
    }

    @Test
    void recordsUnstableLongAfterTheirCommitFailTheTaskAndAreNeverReleased() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.committed();
        lso.put(DEST, 90L);
        commits.check();
        now.addAndGet(Duration.ofSeconds(29).toNanos());
        commits.check();
        assertThat(commits.failure()).isNull();
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        commits.check();
        assertThat(commits.failure()).isNotNull();
        assertThat(commits.failure().getMessage()).contains("orders-0", "A.orders-0", "100", "stays at 90",
                "hanging transaction", "kafka-transactions.sh", "exactly.once.hanging.check.interval.ms");
        // an operator's abort moves the stable offset past records that may have been deleted
        lso.put(DEST, 200L);
        commits.check();
        assertThat(released).isEmpty();
    }

    /**
     * Issue 30's sweep at 1,200 partitions on a saturated machine: the broker wrote the commit markers
     * more than 30 s after the commit, and the task failed for a transaction that was not hanging.
     */
    @Test
    void recordsWhoseTransactionIsStillHavingItsMarkersWrittenWaitAgainInsteadOfFailingTheTask() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.committed();
        lso.put(DEST, 90L);
        commits.check();
        markersPending = true;
        now.addAndGet(Duration.ofSeconds(31).toNanos());
        commits.check();
        assertThat(markersAsked).containsExactly(DEST);
        assertThat(commits.failure()).as("markers still being written: slow, not hanging").isNull();
        assertThat(commits.markersLate()).isEqualTo(1);
        now.addAndGet(Duration.ofSeconds(20).toNanos());
        commits.check();
        assertThat(commits.failure()).as("the wait started again").isNull();
        lso.put(DEST, 101L);
        commits.check();
        assertThat(released).containsExactly(ORIGIN + "@10/null");

        // a transaction the coordinator no longer completes: after the same wait, the task fails
        commits.written(ORIGIN, 11, null, DEST, 102);
        commits.committed();
        commits.check();
        markersPending = false;
        now.addAndGet(Duration.ofSeconds(31).toNanos());
        commits.check();
        assertThat(commits.failure()).isNotNull();
    }

    @Test
    void marksOfADeletedDestinationTopicAreReleasedInsteadOfAwaited() {
        commits.written(ORIGIN, 10, null, DEST, 100);
        commits.committed();
        commits.written(OTHER, 5, null, new TopicPartition("A.other", 0), 50);
        commits.committed();
        commits.destinationReplaced("A.orders");
        assertThat(released).containsExactly("orders-0@10/null");
        // the new topic's offsets start again at 0: nothing of the old one waits for them
        lso.put(DEST, 0L);
        lso.put(new TopicPartition("A.other", 0), 51L);
        now.addAndGet(Duration.ofMinutes(1).toNanos());
        commits.check();
        assertThat(commits.failure()).isNull();
        assertThat(released).containsExactly("orders-0@10/null", "orders-1@5/null");
        assertThat(commits.waiting()).isZero();
    }

    @Test
    void marksOfOnePartitionAreBoundedAndMergedWithoutReleasingEarly() {
        for (int i = 0; i < StableCommits.MAX_MARKS_PER_PARTITION + 50; i++) {
            commits.written(ORIGIN, i, null, DEST, 1000 + i);
            commits.committed();
        }
        assertThat(commits.waiting()).isEqualTo(StableCommits.MAX_MARKS_PER_PARTITION);
        lso.put(DEST, 1000L + StableCommits.MAX_MARKS_PER_PARTITION);
        commits.check();
        assertThat(released).as("all but the merged last mark").hasSize(1)
                .first().isEqualTo("orders-0@" + (StableCommits.MAX_MARKS_PER_PARTITION - 2) + "/null");
        lso.put(DEST, 1000L + StableCommits.MAX_MARKS_PER_PARTITION + 50);
        commits.check();
        assertThat(released).last().isEqualTo("orders-0@" + (StableCommits.MAX_MARKS_PER_PARTITION + 49) + "/null");
    }
}
