package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The building blocks of the monitors: decay, irregular sampling, outliers, windows. */
class EstimatorsTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    @Test
    void decayingRateIsTheSameForRegularAndIrregularSampling() {
        DecayingRate regular = new DecayingRate(Duration.ofSeconds(1));
        DecayingRate irregular = new DecayingRate(Duration.ofSeconds(1));
        Random random = new Random(1);
        for (long t = 0; t < 10 * S; t += MS) {
            regular.add(5, t); // 5,000 per second
        }
        long t = 0;
        while (t < 10 * S) {
            long gap = (1 + random.nextInt(200)) * MS; // chunks every 1..200 ms
            t += gap;
            irregular.add(5.0 * gap / MS, t);
        }
        assertThat(regular.perSecond(10 * S)).isCloseTo(5_000, within(50.0));
        // a chunk counts when reported: right after one of up to 200 ms, the bias is up to 1 - e^-0.2
        assertThat(irregular.perSecond(t)).isCloseTo(5_000, within(500.0));
    }

    @Test
    void aFirstSampleThatAccruedOverTimeReadsOverThatTime() {
        DecayingRate sinceSent = new DecayingRate(Duration.ofSeconds(1));
        sinceSent.add(1_000_000, 700 * MS, 0); // a 1 MB batch acknowledged 0.7 s after it was sent
        assertThat(sinceSent.perSecond(700 * MS)).as("1 MB over 0.7 s of a 1 s time constant")
                .isCloseTo(1_000_000 / (1 - Math.exp(-0.7)), within(1.0));
        DecayingRate atOnce = new DecayingRate(Duration.ofSeconds(1));
        atOnce.add(1_000_000, 700 * MS);
        assertThat(atOnce.perSecond(700 * MS)).as("the same sample without its span: over the window's floor")
                .isCloseTo(20_000_000, within(1.0));
        sinceSent.add(1_000_000, 800 * MS, 500 * MS);
        assertThat(sinceSent.perSecond(800 * MS)).as("later samples' spans change nothing")
                .isCloseTo((1_000_000 * Math.exp(-0.1) + 1_000_000) / (1 - Math.exp(-0.8)), within(1.0));
    }

    @Test
    void recentAmountIsRateTimesTimeConstantAndNeverMoreThanWasAdded() {
        DecayingRate rate = new DecayingRate(Duration.ofSeconds(2));
        assertThat(rate.recentAmount(0)).isZero();
        rate.add(1_000_000, S);
        assertThat(rate.recentAmount(S)).as("one sample: itself, whatever rate it reads as").isEqualTo(1_000_000);
        assertThat(rate.recentAmount(3 * S)).as("one time constant later").isCloseTo(1_000_000 * Math.exp(-1),
                within(1.0));
        DecayingRate steady = new DecayingRate(Duration.ofSeconds(2));
        for (long t = MS; t <= 20 * S; t += MS) {
            steady.add(1_000, t); // 1 MB/s
        }
        assertThat(steady.recentAmount(20 * S)).as("1 MB/s times 2 s").isCloseTo(2_000_000, within(2_000.0));
    }

    @Test
    void decayingRateDecaysWhenArrivalsStopAndIsBoundedAtTheStart() {
        DecayingRate rate = new DecayingRate(Duration.ofSeconds(1));
        rate.add(1_000, 0);
        assertThat(rate.perSecond(0)).as("first sample over the minimum window, not 0 s").isFinite()
                .isLessThanOrEqualTo(1_000 / 0.05);
        for (long t = MS; t <= 5 * S; t += MS) {
            rate.add(1, t);
        }
        double steady = rate.perSecond(5 * S);
        assertThat(steady).isCloseTo(1_000, within(30.0));
        assertThat(rate.perSecond(6 * S)).as("one time constant later").isCloseTo(steady * Math.exp(-1),
                within(steady * 0.05));
    }

    @Test
    void decayingRatioClampsAnOutlierButFollowsALevelShift() {
        DecayingRatio ratio = new DecayingRatio(Duration.ofSeconds(1), 4.0, 3);
        for (int i = 0; i < 100; i++) {
            ratio.add(100, 1, i * 10 * MS);
        }
        assertThat(ratio.value()).isCloseTo(100, within(1e-9));
        ratio.add(1_000_000, 1, 1_000 * MS); // a GC pause, say
        assertThat(ratio.value()).as("one wild sample moves the mean boundedly").isLessThan(110);
        for (int i = 0; i < 1_000; i++) {
            ratio.add(300, 1, 1_000 * MS + i * 10 * MS); // the level really triples
        }
        assertThat(ratio.value()).as("after 10 s the shift is followed").isCloseTo(300, within(3.0));
    }

    @Test
    void decayingRatioIgnoresUnusableSamples() {
        DecayingRatio ratio = new DecayingRatio(Duration.ofSeconds(1), 4.0, 3);
        ratio.add(1, 0, 0);
        ratio.add(Double.NaN, 1, 0);
        ratio.add(-1, 1, 0);
        assertThat(ratio.hasValue()).isFalse();
        assertThat(ratio.value()).isNaN();
        assertThatThrownBy(() -> new DecayingRatio(Duration.ZERO, 4, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void windowedMinForgetsOldSamplesAndWorksWithNegativeTimes() {
        WindowedMin min = new WindowedMin(Duration.ofSeconds(8), 8);
        long start = -20 * S; // System.nanoTime() may be negative
        min.add(50, start);
        min.add(70, start + 3 * S);
        assertThat(min.min(start + 3 * S)).isEqualTo(50);
        assertThat(min.min(start + 9 * S)).as("the 50 left the window").isEqualTo(70);
        assertThat(min.min(start + 30 * S)).isNaN();
    }

    @Test
    void recentRateFollowsTheLastArrivalsWhateverTheirSpacing() {
        RecentRate recent = new RecentRate(4);
        recent.add(10, 0);
        assertThat(recent.perSecond(0)).isNaN();
        for (int i = 1; i <= 3; i++) {
            recent.add(10, i * 100 * MS); // chunks of 10 every 100 ms: 100/s
        }
        assertThat(recent.perSecond(300 * MS)).isCloseTo(100, within(1e-9));
        for (int i = 0; i < 4; i++) {
            recent.add(10, 300 * MS + (i + 1) * MS); // a burst: 10 per ms
        }
        assertThat(recent.perSecond(304 * MS)).isCloseTo(10_000, within(1e-6));
        assertThat(recent.perSecond(1_304 * MS)).as("decays as time passes").isLessThan(40);
    }
}
