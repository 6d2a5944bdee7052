package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class WorkerTransactionsCheckTest {

    private static final TopicPartition P0 = new TopicPartition("A.demo", 0);
    private static final TopicPartition P1 = new TopicPartition("A.demo", 1);

    private final WorkerTransactionsCheck check = new WorkerTransactionsCheck(true);

    @Test
    void recordsOfOnePollAreContiguousAndProveNothing() {
        Object poll = new Object();
        for (long offset = 10; offset < 20; offset++) {
            assertThat(check.written(poll, P0, offset)).isNull();
        }
        assertThat(check.evidence()).isNull();
    }

    @Test
    void aLaterPollStartingAfterTheCommitMarkerIsWhatATransactionalWorkerWrites() {
        Object first = new Object();
        Object second = new Object();
        check.written(first, P0, 10);
        check.written(first, P0, 11);
        // 12 is the commit marker of the first poll's transaction
        assertThat(check.written(second, P0, 13)).isNull();
        assertThat(check.written(second, P0, 14)).isNull();
        assertThat(check.evidence()).isNull();
    }

    @Test
    void aLaterPollStartingRightAfterTheEarlierPollsLastRecordProvesAWorkerWithoutTransactions() {
        Object first = new Object();
        Object second = new Object();
        check.written(first, P0, 10);
        check.written(first, P0, 11);

        WorkerTransactionsCheck.Evidence evidence = check.written(second, P0, 12);

        assertThat(evidence).isNotNull().isSameAs(check.evidence());
        assertThat(evidence.message())
                .contains("exactly.once.support=required")
                .contains("exactly.once.source.support=enabled")
                .contains("exactly.once.support=requested")
                .contains("A.demo-0")
                .contains("offset 12")
                .contains("offset 11");
    }

    @Test
    void recordsConnectReportsNotWrittenTakeNoOffsetAndAreIgnored() {
        Object first = new Object();
        Object second = new Object();
        Object third = new Object();
        check.written(first, P0, 10);
        assertThat(check.written(first, null, -1)).as("the poll's last record, dropped by a transformation").isNull();
        assertThat(check.written(second, null, -1)).as("a poll whose first record was dropped").isNull();
        assertThat(check.written(second, P0, 12)).as("its first written record, after the marker").isNull();
        assertThat(check.written(third, null, -1)).isNull();
        assertThat(check.evidence()).isNull();

        assertThat(check.written(third, P0, 13)).as("no marker after the second poll's records").isNotNull();
    }

    @Test
    void aGapWiderThanOneMarkerIsAnotherWriterNotAFailure() {
        Object first = new Object();
        check.written(first, P0, 10);
        assertThat(check.written(new Object(), P0, 40)).isNull();
        assertThat(check.evidence()).isNull();
    }

    @Test
    void offsetsStartingAgainInARecreatedDestinationTopicProveNothing() {
        check.written(new Object(), P0, 500);
        assertThat(check.written(new Object(), P0, 0)).isNull();
        assertThat(check.evidence()).isNull();
    }

    @Test
    void eachDestinationPartitionIsJudgedOnItsOwnRecords() {
        Object first = new Object();
        Object second = new Object();
        check.written(first, P0, 10);
        check.written(first, P1, 5);
        assertThat(check.written(second, P1, 7)).isNull();
        assertThat(check.written(second, P0, 12)).isNull();
        assertThat(check.written(second, P1, 8)).isNull();

        WorkerTransactionsCheck.Evidence evidence = check.written(new Object(), P1, 9);

        assertThat(evidence).isNotNull();
        assertThat(evidence.message()).contains("A.demo-1").contains("offset 9").contains("offset 8");
    }

    @Test
    void withTransactionsSpanningPollsContiguousPollsProveNothing() {
        WorkerTransactionsCheck intervalBoundary = new WorkerTransactionsCheck(false);
        intervalBoundary.written(new Object(), P0, 10);
        assertThat(intervalBoundary.written(new Object(), P0, 11)).isNull();
        assertThat(intervalBoundary.evidence()).isNull();
    }

    @Test
    void commitOnTheTaskThreadIsWhatATransactionalWorkerDoes() {
        assertThat(check.committed(true, "task-thread-0")).isNull();
        assertThat(check.evidence()).isNull();
    }

    @Test
    void commitFromAnotherThreadProvesAWorkerWithoutTransactionsWhateverTheBoundary() {
        WorkerTransactionsCheck intervalBoundary = new WorkerTransactionsCheck(false);

        WorkerTransactionsCheck.Evidence evidence = intervalBoundary.committed(false, "SourceTaskOffsetCommitter-1");

        assertThat(evidence).isNotNull().isSameAs(intervalBoundary.evidence());
        assertThat(evidence.message())
                .contains("SourceTaskOffsetCommitter-1")
                .contains("exactly.once.support=required")
                .contains("exactly.once.source.support=enabled")
                .contains("exactly.once.support=requested");
    }

    @Test
    void theFirstEvidenceIsReportedOnceAndKept() {
        Object first = new Object();
        check.written(first, P0, 10);
        WorkerTransactionsCheck.Evidence evidence = check.written(new Object(), P0, 11);
        assertThat(evidence).isNotNull();

        assertThat(check.committed(false, "SourceTaskOffsetCommitter-1")).isNull();
        assertThat(check.written(new Object(), P0, 12)).isNull();
        assertThat(check.evidence()).isSameAs(evidence);
    }
}
