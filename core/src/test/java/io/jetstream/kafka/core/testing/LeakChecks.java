package io.jetstream.kafka.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/** Makes Netty report pending leaks now and asserts there are none. */
public final class LeakChecks {

    private LeakChecks() {
    }

    /**
     * Collects garbage and allocates tracked buffers: a PARANOID detector checks its reference
     * queue on every allocation, so buffers that became unreachable without release are reported.
     */
    public static void flushLeakReports() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            for (int i = 0; i < 8; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
        }
    }

    public static void assertNoLeaks() {
        assertThat(ResourceLeakDetector.getLevel())
                .as("tests run with -Dio.netty.leakDetection.level=paranoid (core/pom.xml)")
                .isEqualTo(ResourceLeakDetector.Level.PARANOID);
        flushLeakReports();
        assertThat(CountingLeakDetector.reports()).as("Netty leak reports").isEmpty();
    }
}
