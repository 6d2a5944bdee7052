package io.jetstream.kafka.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Proves the leak harness the codec tests rely on actually catches a leak. */
class LeakDetectorSelfTest {

    @Test
    void anUnreleasedPooledBufferIsReported() {
        System.out.println("LeakDetectorSelfTest: the 'LEAK' error with hint leak-self-test logged next is deliberate");
        leakOneBuffer();
        for (int attempt = 0; attempt < 20 && !reported(); attempt++) {
            LeakChecks.flushLeakReports();
        }
        try {
            assertThat(reported()).as("leak report with hint leak-self-test").isTrue();
        } finally {
            FailingLeakDetector.forget("leak-self-test");
        }
    }

    private static boolean reported() {
        return FailingLeakDetector.reports().stream().anyMatch(report -> report.contains("leak-self-test"));
    }

    private static void leakOneBuffer() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
        leaked.touch("leak-self-test");
        // deliberately not released and no longer referenced
    }
}
