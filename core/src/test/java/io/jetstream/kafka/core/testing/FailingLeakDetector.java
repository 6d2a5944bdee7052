package io.jetstream.kafka.core.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty leak detector installed for the whole test JVM through
 * {@code -Dio.netty.customResourceLeakDetector} (set by the surefire configuration of core,
 * transport and relay-node). It keeps every leak report so that {@link LeakChecks#assertNoLeaks()}
 * fails the test instead of only logging; the surefire run also sets the PARANOID level, so every
 * buffer is traced.
 *
 * <p>Shared through core's test-jar ({@code jetstream-core:test-jar}).
 */
public final class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    /** Leak reports so far. */
    public static List<String> reports() {
        return List.copyOf(REPORTS);
    }

    /** Forgets the reports that mention {@code hint} (used by the self-test for its deliberate leak). */
    public static void forget(String hint) {
        REPORTS.removeIf(report -> report.contains(hint));
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        REPORTS.add(resourceType + " leaked:" + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        REPORTS.add(resourceType + " leaked (untraced)");
        super.reportUntracedLeak(resourceType);
    }
}
