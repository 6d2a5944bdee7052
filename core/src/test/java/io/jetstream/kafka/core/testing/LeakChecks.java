package io.jetstream.kafka.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

/**
 * Makes Netty report pending leaks now, and fails when there are any. Shared through core's
 * test-jar by every module that tests Netty code (core, transport, relay-node).
 */
public final class LeakChecks {

    private LeakChecks() {
    }

    /**
     * Collects garbage and allocates tracked buffers: the PARANOID detector polls its reference
     * queue on every allocation, so buffers that became unreachable unreleased are reported.
     */
    public static void flushLeakReports() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            for (int i = 0; i < 8; i++) {
                ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                pooled.release();
                ByteBuf heap = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
                heap.release();
            }
        }
    }

    public static void assertNoLeaks() {
        assertThat(ResourceLeakDetector.getLevel())
                .as("tests run with -Dio.netty.leakDetection.level=paranoid (see the module's pom.xml)")
                .isEqualTo(ResourceLeakDetector.Level.PARANOID);
        assertThat(ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class))
                .as("-Dio.netty.customResourceLeakDetector installs the detector that records reports")
                .isInstanceOf(FailingLeakDetector.class);
        flushLeakReports();
        assertThat(FailingLeakDetector.reports()).as("Netty leak reports").isEmpty();
    }
}
