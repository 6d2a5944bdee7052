package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyCollection;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ListTransactionsResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Whether records that look stuck below a destination partition's stable offset are held by a hanging
 * transaction ({@link AdminStableOffsets#markersPending}), against the broker's answers as an Admin gives them
 * (the Admin is the unit's collaborator, so it is a mock here; StableCommitsTest covers what follows).
 */
class MarkersPendingTest {

    private static final TopicPartition TP = new TopicPartition("A.orders", 3);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final Admin admin = mock(Admin.class);

    private static ProducerState open(long producerId, long startOffset) {
        return new ProducerState(producerId, 0, 1, 0L, OptionalInt.empty(), OptionalLong.of(startOffset));
    }

    @SafeVarargs
    private void producersRead(List<ProducerState>... readings) {
        DescribeProducersResult[] results = Arrays.stream(readings).map(states -> {
            DescribeProducersResult result = mock(DescribeProducersResult.class);
            when(result.partitionResult(TP)).thenReturn(KafkaFuture.completedFuture(
                    new DescribeProducersResult.PartitionProducerState(states)));
            return result;
        }).toArray(DescribeProducersResult[]::new);
        when(admin.describeProducers(anyCollection(), any(DescribeProducersOptions.class))).thenReturn(results[0],
                Arrays.copyOfRange(results, 1, results.length));
    }

    private void coordinatorSays(TransactionState state, long producerId) {
        ListTransactionsResult result = mock(ListTransactionsResult.class);
        when(result.all()).thenReturn(KafkaFuture.completedFuture(
                List.of(new TransactionListing("connect-B-task-0", producerId, state))));
        when(admin.listTransactions(any(ListTransactionsOptions.class))).thenReturn(result);
    }

    @Test
    void aTransactionOpenAcrossBothReadingsAndNotBeingPreparedHangs() throws Exception {
        producersRead(List.of(open(7, 0)), List.of(open(7, 0)));
        coordinatorSays(TransactionState.ONGOING, 7);

        assertThat(AdminStableOffsets.markersPending(admin, TP, 3, TIMEOUT)).isFalse();
    }

    @Test
    void markersWrittenBetweenTheStableOffsetReadAndTheCoordinatorsAnswerAreNotAHang() throws Exception {
        // the stable offset was read at 0; the markers land meanwhile: the coordinator already says
        // CompleteCommit, and the second reading finds the transaction gone from the partition
        producersRead(List.of(open(7, 0)), List.of());
        coordinatorSays(TransactionState.COMPLETE_COMMIT, 7);

        assertThat(AdminStableOffsets.markersPending(admin, TP, 3, TIMEOUT)).isTrue();
    }

    @Test
    void aProducerThatMovedOnToALaterTransactionIsNotAHang() throws Exception {
        producersRead(List.of(open(7, 0)), List.of(open(7, 9)));
        coordinatorSays(TransactionState.ONGOING, 7);

        assertThat(AdminStableOffsets.markersPending(admin, TP, 3, TIMEOUT)).isTrue();
    }

    @Test
    void onlyTransactionsStartedAtOrBeforeTheHeldRecordsCanHoldThem() throws Exception {
        producersRead(List.of(open(7, 4)));

        assertThat(AdminStableOffsets.markersPending(admin, TP, 3, TIMEOUT)).as("started after offset 3").isTrue();
    }

    @Test
    void aTransactionStillHavingItsMarkersWrittenIsLateNotHanging() throws Exception {
        producersRead(List.of(open(7, 0)), List.of(open(7, 0)));
        coordinatorSays(TransactionState.PREPARE_COMMIT, 7);

        assertThat(AdminStableOffsets.markersPending(admin, TP, 3, TIMEOUT)).isTrue();
    }
}
