package io.jetstream.kafka.source.sender;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.Frame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RttSamplerTest {

    private static final long SECOND = 1_000_000_000L;

    /** A relay whose round trip the test sets; 0 stands for not ready or not measured. */
    private static final class TimedRelay implements Relay {
        long rttNanos;

        @Override
        public String name() {
            return "timed";
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public boolean send(Frame frame) {
            ReferenceCountUtil.release(frame);
            return true;
        }

        @Override
        public int maxBatchPayloadBytes() {
            return 0;
        }

        @Override
        public long rttNanos() {
            return rttNanos;
        }
    }

    private final List<String> samples = new ArrayList<>();
    private final BatchPolicy policy = new BatchPolicy() {
        @Override
        public BatchDecision decision(long nowNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void onRttSample(long rttNanos, long nowNanos) {
            samples.add(rttNanos / 1_000_000 + " ms at " + nowNanos / SECOND + " s");
        }
    };

    @Test
    void theRelaysThatKnowTheirRoundTripAreSampledAtMostOnceASecond() {
        TimedRelay a = new TimedRelay();
        TimedRelay b = new TimedRelay();
        a.rttNanos = 40_000_000L;
        RttSampler sampler = new RttSampler(List.of(a, b), policy);

        sampler.sample(10 * SECOND);
        b.rttNanos = 70_000_000L;
        sampler.sample(10 * SECOND + SECOND / 2);
        sampler.sample(11 * SECOND);
        sampler.sample(11 * SECOND + 1);

        assertThat(samples).as("b unknown at first; nothing within a second of the last sample")
                .containsExactly("40 ms at 10 s", "40 ms at 11 s", "70 ms at 11 s");
    }
}
