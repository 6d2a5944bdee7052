package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Delivery;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransactionPacingTest {

    private static final long MS = 1_000_000L;

    /** {@code perPartition} records of each of {@code partitions} partitions of topic t, partition by partition. */
    private static List<Delivery> records(int partitions, int perPartition) {
        List<Delivery> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int r = 0; r < perPartition; r++) {
                out.add(new Delivery("t", p, null, null));
            }
        }
        return out;
    }

    @Test
    void aTransactionOverFewPartitionsKeepsTheLeastGap() {
        // 10 ms at least, 0.5 ms per partition (2,000 partitions a second), 1 s at most
        TransactionPacing pacing = new TransactionPacing(10 * MS, MS / 2, 1_000 * MS);
        assertThat(pacing.nextGapNanos()).isEqualTo(10 * MS);

        pacing.polled(records(6, 50));

        assertThat(pacing.nextGapNanos()).isEqualTo(10 * MS);
    }

    @Test
    void aTransactionOverManyPartitionsMakesTheNextWaitLongerUpToTheMost() {
        TransactionPacing pacing = new TransactionPacing(10 * MS, MS / 2, 1_000 * MS);

        pacing.polled(records(1_200, 3));
        assertThat(pacing.nextGapNanos()).isEqualTo(600 * MS);

        pacing.polled(records(10_000, 1));
        assertThat(pacing.nextGapNanos()).isEqualTo(1_000 * MS);

        // and back once transactions carry few partitions again
        pacing.polled(records(4, 100));
        assertThat(pacing.nextGapNanos()).isEqualTo(10 * MS);
    }

    @Test
    void noRateMeansTheLeastGapAlways() {
        TransactionPacing pacing = new TransactionPacing(10 * MS, 0, 1_000 * MS);

        pacing.polled(records(1_200, 1));

        assertThat(pacing.nextGapNanos()).isEqualTo(10 * MS);
    }

    @Test
    void partitionRunsCountsEachRunOfOnePartitionOfOneTopic() {
        List<Delivery> deliveries = new ArrayList<>(records(3, 2)); // t-0 t-0 t-1 t-1 t-2 t-2
        deliveries.add(new Delivery("u", 2, null, null)); // same partition, other topic
        deliveries.add(new Delivery("t", 0, null, null)); // t-0 again after others: a second batch of it

        assertThat(TransactionPacing.partitionRuns(deliveries)).isEqualTo(5);
        assertThat(TransactionPacing.partitionRuns(List.of())).isZero();
    }
}
