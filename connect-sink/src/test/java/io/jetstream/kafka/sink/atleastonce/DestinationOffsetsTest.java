package io.jetstream.kafka.sink.atleastonce;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DestinationOffsetsTest {

    @Test
    void predictsConsecutiveOffsetsFromTheEndOffsetAtTakeover() {
        DestinationOffsets offsets = DestinationOffsets.startingAt(100);
        assertThat(offsets.predictNext()).isEqualTo(100);
        assertThat(offsets.predictNext()).isEqualTo(101);
        offsets.onWritten(100);
        offsets.onWritten(101);
        assertThat(offsets.predictNext()).isEqualTo(102);
        assertThat(offsets.corrections()).isZero();
    }

    @Test
    void aSkippedRecordOrAnotherWriterMovesTheBaseOnce() {
        DestinationOffsets offsets = DestinationOffsets.startingAt(0);
        long a = offsets.predictNext(); // 0
        long b = offsets.predictNext(); // 1, dropped by a transformation
        long c = offsets.predictNext(); // 2, really written at 1
        long d = offsets.predictNext(); // 3, really written at 2
        assertThat(new long[] {a, b, c, d}).containsExactly(0, 1, 2, 3);
        offsets.onWritten(0);
        offsets.onSkipped();
        offsets.onWritten(1);
        offsets.onWritten(2);
        assertThat(offsets.corrections()).isEqualTo(1);
        assertThat(offsets.predictNext()).isEqualTo(3);
        offsets.onWritten(7); // another producer wrote 4 records in between
        assertThat(offsets.predictNext()).isEqualTo(8);
        assertThat(offsets.corrections()).isEqualTo(2);
    }

    @Test
    void countsWhatThePredecessorWroteAfterItsStoredProgress() {
        assertThat(DestinationOffsets.rewrittenAfter(41, 50)).as("offsets 42..49 written again").isEqualTo(8);
        assertThat(DestinationOffsets.rewrittenAfter(49, 50)).isZero();
        assertThat(DestinationOffsets.rewrittenAfter(-1, 50)).as("no destination offset stored").isZero();
        assertThat(DestinationOffsets.rewrittenAfter(60, 50)).as("log shorter than stored (truncated)").isZero();
    }

    @Test
    void anUnknownStartPredictsNothing() {
        DestinationOffsets offsets = DestinationOffsets.unknown();
        assertThat(offsets.predictNext()).isEqualTo(DestinationOffsets.UNKNOWN);
        offsets.onWritten(5);
        assertThat(offsets.predictNext()).isEqualTo(DestinationOffsets.UNKNOWN);
    }
}
