package io.jetstream.kafka.relay.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.util.ResourceLeakDetector;

/**
 * Netty leak detector installed for the whole test JVM through
 * {@code -Dio.netty.customResourceLeakDetector} (see relay-node/pom.xml). It keeps every leak report
 * so that {@link LeakChecks#assertNoLeaks()} fails the test instead of only logging; the surefire
 * run also sets the PARANOID level, so every buffer is tracked.
 */
public final class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    public static List<String> reports() {
        return List.copyOf(REPORTS);
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
