package io.jetstream.kafka.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BatchIdSequenceTest {

    @Test
    void idsCarryTheEpochAndCountWithinIt() {
        BatchIdSequence ids = new BatchIdSequence(7);
        long first = ids.next();
        long second = ids.next();
        assertThat(BatchIdSequence.epoch(first)).isEqualTo(7);
        assertThat(BatchIdSequence.sequence(first)).isZero();
        assertThat(BatchIdSequence.sequence(second)).isEqualTo(1);
    }

    @Test
    void aWrappedSequenceMovesToTheNextEpoch() {
        BatchIdSequence ids = new BatchIdSequence(7);
        long last = 0;
        // jump to the end of the epoch without 4 billion calls: ids are plain increments
        long lastOfEpoch = (7L << 32) | 0xFFFFFFFFL;
        assertThat(BatchIdSequence.epoch(lastOfEpoch + 1)).isEqualTo(8);
        assertThat(BatchIdSequence.sequence(lastOfEpoch + 1)).isZero();
        for (int i = 0; i < 3; i++) {
            last = ids.next();
        }
        assertThat(last).isEqualTo((7L << 32) + 2);
    }

    @Test
    void randomEpochsAreNonNegative() {
        for (int i = 0; i < 100; i++) {
            assertThat(BatchIdSequence.epoch(BatchIdSequence.withRandomEpoch().next())).isNotNegative();
        }
    }
}
