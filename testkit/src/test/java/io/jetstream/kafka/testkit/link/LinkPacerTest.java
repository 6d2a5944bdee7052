package io.jetstream.kafka.testkit.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;

class LinkPacerTest {

    private static final long MS = 1_000_000;

    @Test
    void unlimitedLinkBooksNothing() {
        LinkPacer pacer = new LinkPacer(0);

        assertThat(pacer.reserve(1_000_000, 42)).isEqualTo(new LinkPacer.Slot(42, 42));
    }

    @Test
    void bookingsChainFromThePreviousEndWhileTheLinkIsBusy() {
        LinkPacer pacer = new LinkPacer(1_000_000); // 1 byte per microsecond
        long now = 100 * MS;

        LinkPacer.Slot first = pacer.reserve(1000, now);
        LinkPacer.Slot second = pacer.reserve(1000, now);
        LinkPacer.Slot third = pacer.reserve(1000, now);

        assertThat(first.startNanos()).isEqualTo(now - LinkPacer.MAX_CREDIT_NANOS);
        assertThat(second.startNanos()).isEqualTo(first.endNanos());
        assertThat(third.startNanos()).isEqualTo(second.endNanos());
        assertThat(third.endNanos() - first.startNanos()).isEqualTo(3 * MS);
    }

    @Test
    void lateWakeUpsDoNotCostLinkTime() {
        LinkPacer pacer = new LinkPacer(4_000_000);
        Random random = new Random(7);
        long now = 0;
        LinkPacer.Slot first = pacer.reserve(4000, now);
        LinkPacer.Slot last = first;
        for (int i = 1; i < 10_000; i++) {
            // The reader wakes up to 0.9 ms after its slot started (a chunk lasts 1 ms), then books the next chunk.
            now = Math.max(now, last.startNanos()) + random.nextInt((int) (0.9 * MS));
            last = pacer.reserve(4000, now);
        }

        double seconds = (last.endNanos() - first.startNanos()) / 1e9;
        assertThat(10_000 * 4000 / seconds).isEqualTo(4_000_000.0);
    }

    @Test
    void idleLinkKeepsAtMostTheCredit() {
        LinkPacer pacer = new LinkPacer(1_000_000);
        pacer.reserve(1000, 0);

        LinkPacer.Slot afterIdle = pacer.reserve(1000, 1_000 * MS);

        assertThat(afterIdle.startNanos()).isEqualTo(1_000 * MS - LinkPacer.MAX_CREDIT_NANOS);
    }

    @Test
    void roundingIsCarriedSoNothingDrifts() {
        LinkPacer pacer = new LinkPacer(3);
        LinkPacer.Slot first = pacer.reserve(1, 0);
        LinkPacer.Slot last = first;
        for (int i = 1; i < 3_000; i++) {
            last = pacer.reserve(1, 0);
        }

        assertThat(last.endNanos() - first.startNanos()).isEqualTo(1_000_000_000L * 1_000);
    }

    @Test
    void newRateAppliesToTheNextBooking() {
        LinkPacer pacer = new LinkPacer(1_000_000);
        LinkPacer.Slot slow = pacer.reserve(1000, 0);
        pacer.setRate(2_000_000);

        LinkPacer.Slot fast = pacer.reserve(1000, 0);

        assertThat(slow.endNanos() - slow.startNanos()).isEqualTo(MS);
        assertThat(fast.endNanos() - fast.startNanos()).isEqualTo(MS / 2);
        assertThat(pacer.rate()).isEqualTo(2_000_000);
    }
}
