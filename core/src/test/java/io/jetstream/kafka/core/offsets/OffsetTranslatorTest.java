package io.jetstream.kafka.core.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.offsets.OffsetTranslator.Status;
import io.jetstream.kafka.core.offsets.OffsetTranslator.Translation;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class OffsetTranslatorTest {

    private static OffsetMapEntry run(long previous, int markers, long... originThenDestination) {
        OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
        for (int i = 0; i < originThenDestination.length; i += 2) {
            builder.add(originThenDestination[i], originThenDestination[i + 1]);
        }
        return builder.build("A", "t", 0, Uuid.ZERO_UUID, "A.t", previous, markers, false);
    }

    private static Translation exact(long offset) {
        return new Translation(Status.EXACT, offset);
    }

    @Test
    void translatesPositionsAcrossOriginGapsAndDestinationMarkers() {
        OffsetTranslator translator = new OffsetTranslator();
        // origin 0..2 written at 0..2, commit marker at 3; origin 3 is an origin marker;
        // origin 4..5 at 4..5, marker at 6
        translator.add(run(-1, 1, 0, 0, 1, 1, 2, 2));
        translator.add(run(2, 1, 4, 4, 5, 5));
        assertThat(translator.toDestination(0)).isEqualTo(exact(0));
        assertThat(translator.toDestination(2)).isEqualTo(exact(2));
        // a group that read origin 0..2 continues at the next replicated record, 4
        assertThat(translator.toDestination(3)).isEqualTo(exact(4));
        assertThat(translator.toDestination(4)).isEqualTo(exact(4));
        assertThat(translator.toDestination(6)).isEqualTo(exact(6));
        assertThat(translator.toDestination(7)).isEqualTo(new Translation(Status.BEYOND_MAP, 7));

        assertThat(translator.toOrigin(0)).isEqualTo(exact(0));
        assertThat(translator.toOrigin(3)).isEqualTo(exact(3)); // the marker: origin 0..2 read
        assertThat(translator.toOrigin(4)).isEqualTo(exact(4));
        assertThat(translator.toOrigin(6)).isEqualTo(exact(6)); // read_committed positions pass the marker
        assertThat(translator.toOrigin(7)).isEqualTo(exact(6));
        assertThat(translator.toOrigin(8).status()).isEqualTo(Status.BEYOND_MAP);
    }

    @Test
    void positionsBeforeTheOldestEntryOrInAHoleAreNotGuessed() {
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(run(99, 1, 100, 50, 101, 51));
        translator.add(run(150, 1, 151, 60));  // 102..150 were written without a map entry
        assertThat(translator.toDestination(99).status()).isEqualTo(Status.BEFORE_MAP);
        assertThat(translator.toDestination(100)).isEqualTo(exact(50));
        assertThat(translator.toDestination(102)).isEqualTo(exact(52));
        assertThat(translator.toDestination(103).status()).isEqualTo(Status.HOLE);
        assertThat(translator.toDestination(151)).isEqualTo(exact(60));
        assertThat(translator.toOrigin(49).status()).isEqualTo(Status.BEFORE_MAP);
        assertThat(translator.toOrigin(55).status()).isEqualTo(Status.HOLE);
    }

    @Test
    void aCorrectionReplacesThePredictionOfTheSameRun() {
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(run(-1, 1, 0, 0, 1, 1, 2, 2));
        translator.add(run(2, 1, 3, 4, 4, 5));                 // predicted
        translator.add(new OffsetMapEntry.Builder().add(3, 4).add(4, 9) // origin 4 really landed at 9
                .build("A", "t", 0, Uuid.ZERO_UUID, "A.t", 2, 1, true));
        assertThat(translator.toDestination(4)).isEqualTo(exact(9));
        assertThat(translator.toDestination(5)).isEqualTo(exact(10));
        assertThat(translator.toDestination(6)).isEqualTo(new Translation(Status.BEYOND_MAP, 11));
        assertThat(translator.toOrigin(6)).isEqualTo(exact(4));
    }

    @Test
    void aRunWrittenAgainAfterACrashReplacesTheCrashedInstancesRuns() {
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(run(-1, 0, 0, 0, 1, 1));
        translator.add(run(1, 0, 2, 2, 3, 3));
        translator.add(run(3, 0, 4, 4, 5, 5));
        // stored progress said 1: origin 2..5 written again at 6..9
        translator.add(run(1, 0, 2, 6, 3, 7, 4, 8, 5, 9));
        assertThat(translator.toDestination(1)).isEqualTo(exact(1));
        assertThat(translator.toDestination(4)).isEqualTo(exact(8));
        assertThat(translator.toDestination(6)).isEqualTo(exact(10));
        assertThat(translator.toDestination(7)).isEqualTo(new Translation(Status.BEYOND_MAP, 10));
    }

    @Test
    void aNewIncarnationOfTheOriginTopicStartsAfresh() {
        OffsetTranslator translator = new OffsetTranslator();
        Uuid old = Uuid.randomUuid();
        Uuid recreated = Uuid.randomUuid();
        translator.add(new OffsetMapEntry.Builder().add(0, 0).add(1, 1).build("A", "t", 0, old, "A.t", -1, 1, false));
        translator.add(new OffsetMapEntry.Builder().add(0, 3).build("A", "t", 0, recreated, "A.t", -1, 1, false));
        assertThat(translator.topicId()).isEqualTo(recreated);
        assertThat(translator.toDestination(0)).isEqualTo(exact(3));
        assertThat(translator.toDestination(1)).isEqualTo(exact(4));
        assertThat(translator.toDestination(2)).isEqualTo(new Translation(Status.BEYOND_MAP, 5));
    }

    /**
     * A simulated destination: random runs with origin gaps and one marker per transaction; every
     * origin position translates to the position a consumer must take so that it reads exactly the
     * replicas of the records it had not read, and back.
     */
    @Test
    void everyPositionOfASimulatedStreamTranslatesExactlyBothWays() {
        for (long seed = 1; seed <= 50; seed++) {
            Random random = new Random(seed);
            OffsetTranslator translator = new OffsetTranslator();
            List<long[]> written = new ArrayList<>(); // {origin, destination}
            long origin = random.nextInt(100);
            long destination = random.nextInt(100);
            long previous = origin - 1;
            for (int t = 0; t < 40; t++) {
                OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
                int records = 1 + random.nextInt(30);
                for (int i = 0; i < records; i++) {
                    builder.add(origin, destination);
                    written.add(new long[] {origin, destination});
                    origin += 1 + (random.nextInt(8) == 0 ? 1 + random.nextInt(3) : 0);
                    destination++;
                }
                OffsetMapEntry entry = builder.build("A", "t", 0, Uuid.ZERO_UUID, "A.t", previous, 1, false);
                translator.add(entry);
                previous = entry.lastOrigin();
                destination++; // the transaction's commit marker
            }
            long firstOrigin = written.get(0)[0];
            long lastOrigin = written.get(written.size() - 1)[0];
            for (long position = firstOrigin; position <= lastOrigin + 1; position++) {
                long p = position;
                long expected = written.stream().filter(w -> w[0] >= p).mapToLong(w -> w[1]).min()
                        .orElse(written.get(written.size() - 1)[1] + 1);
                assertThat(translator.toDestination(position)).as("seed %d origin %d", seed, position)
                        .isEqualTo(exact(expected));
            }
            long lastDestination = written.get(written.size() - 1)[1];
            for (long position = written.get(0)[1]; position <= lastDestination + 2; position++) {
                long p = position;
                long expected = written.stream().filter(w -> w[1] >= p).mapToLong(w -> w[0]).min()
                        .orElse(lastOrigin + 1);
                Translation back = translator.toOrigin(position);
                assertThat(back.exact()).as("seed %d destination %d", seed, position).isTrue();
                // equal, or a position between the same two records (origin offsets without records)
                long recordsBelowExpected = written.stream().filter(w -> w[0] < expected).count();
                long recordsBelowAnswer = written.stream().filter(w -> w[0] < back.offset()).count();
                assertThat(recordsBelowAnswer).as("seed %d destination %d", seed, position)
                        .isEqualTo(recordsBelowExpected);
            }
        }
    }
}
