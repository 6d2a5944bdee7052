package io.jetstream.kafka.core.offsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class OffsetMapCodecTest {

    private static final Uuid ID = Uuid.fromString("q1Sh-9_ISia_zwGINzRvyQ");

    @Test
    void aContiguousRunIsOneSegmentWhateverItsLength() {
        OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
        for (int i = 0; i < 10_000; i++) {
            builder.add(5_000_000_000L + i, 7_000_000_000L + i);
        }
        OffsetMapEntry entry = builder.build("A", "demo.t1", 3, ID, "A.demo.t1", 4_999_999_999L, 1, false);
        assertThat(entry.segments()).containsExactly(new OffsetMapEntry.Segment(5_000_000_000L, 7_000_000_000L, 10_000));
        byte[] value = OffsetMapCodec.value(entry);
        assertThat(value.length).isLessThan(48);
        assertThat(OffsetMapCodec.decode(OffsetMapCodec.key("A", "demo.t1", 3), value)).isEqualTo(entry);
    }

    @Test
    void originGapsAndDestinationJumpsStartNewSegments() {
        OffsetMapEntry entry = new OffsetMapEntry.Builder()
                .add(10, 100).add(11, 101)      // then origin 12 is a transaction marker
                .add(13, 102).add(14, 103)      // then a record landed elsewhere
                .add(15, 110)
                .build("A", "t", 0, Uuid.ZERO_UUID, "A.t", 7, 0, true);
        assertThat(entry.segments()).containsExactly(new OffsetMapEntry.Segment(10, 100, 2),
                new OffsetMapEntry.Segment(13, 102, 2), new OffsetMapEntry.Segment(15, 110, 1));
        assertThat(entry.records()).isEqualTo(5);
        OffsetMapEntry decoded = OffsetMapCodec.decode(OffsetMapCodec.key("A", "t", 0), OffsetMapCodec.value(entry));
        assertThat(decoded).isEqualTo(entry);
        assertThat(decoded.correction()).isTrue();
    }

    @Test
    void randomEntriesRoundTrip() {
        for (long seed = 1; seed <= 200; seed++) {
            Random random = new Random(seed);
            OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
            long previous = random.nextInt(3) == 0 ? -1 : random.nextLong(0, Long.MAX_VALUE / 4);
            long origin = previous + 1 + random.nextInt(5);
            long destination = random.nextLong(0, Long.MAX_VALUE / 4);
            int records = 1 + random.nextInt(500);
            for (int i = 0; i < records; i++) {
                builder.add(origin, destination);
                origin += 1 + (random.nextInt(10) == 0 ? random.nextInt(1000) : 0);
                destination += 1 + (random.nextInt(20) == 0 ? random.nextInt(3) : 0);
            }
            OffsetMapEntry entry = builder.build("site-" + seed, "topic." + seed, random.nextInt(1000),
                    random.nextBoolean() ? Uuid.randomUuid() : Uuid.ZERO_UUID, "dest." + seed, previous,
                    random.nextInt(2), random.nextBoolean());
            byte[] key = OffsetMapCodec.key(entry.sourceAlias(), entry.originTopic(), entry.partition());
            assertThat(OffsetMapCodec.decode(key, OffsetMapCodec.value(entry))).as("seed %d", seed).isEqualTo(entry);
            assertThat(entry.records()).as("seed %d", seed).isEqualTo(records);
        }
    }

    @Test
    void keysAreReadableAndNameTheOriginPartition() {
        byte[] key = OffsetMapCodec.key("east-1", "orders.v2", 11);
        assertThat(new String(key, StandardCharsets.UTF_8)).isEqualTo("east-1/orders.v2/11");
        assertThat(OffsetMapCodec.decodeKey(key)).isEqualTo(new OffsetMapCodec.OriginPartition("east-1", "orders.v2", 11));
        assertThatThrownBy(() -> OffsetMapCodec.decodeKey("east-1/orders".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(OffsetMapFormatException.class).hasMessageContaining("east-1/orders");
    }

    @Test
    void truncatedOrForeignValuesFailNamingThePartition() {
        OffsetMapEntry entry = new OffsetMapEntry.Builder().add(0, 0).add(1, 1)
                .build("A", "t", 2, ID, "A.t", -1, 1, false);
        byte[] key = OffsetMapCodec.key("A", "t", 2);
        byte[] value = OffsetMapCodec.value(entry);
        for (int length = 0; length < value.length; length++) {
            byte[] truncated = Arrays.copyOf(value, length);
            assertThatThrownBy(() -> OffsetMapCodec.decode(key, truncated)).as("length %d", length)
                    .isInstanceOf(OffsetMapFormatException.class).hasMessageContaining("A/t/2");
        }
        byte[] future = value.clone();
        future[0] = 2;
        assertThatThrownBy(() -> OffsetMapCodec.decode(key, future)).hasMessageContaining("version 2");
        byte[] longer = Arrays.copyOf(value, value.length + 1);
        assertThatThrownBy(() -> OffsetMapCodec.decode(key, longer)).hasMessageContaining("after the last segment");
    }

    @Test
    void segmentsMustFollowPreviousAndEachOther() {
        assertThatThrownBy(() -> new OffsetMapEntry("A", "t", 0, ID, "A.t", 10,
                List.of(new OffsetMapEntry.Segment(10, 0, 1)), 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("follow 'previous' (10)");
        assertThatThrownBy(() -> new OffsetMapEntry("A", "t", 0, ID, "A.t", -1,
                List.of(new OffsetMapEntry.Segment(0, 5, 2), new OffsetMapEntry.Segment(3, 6, 1)), 0, false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
