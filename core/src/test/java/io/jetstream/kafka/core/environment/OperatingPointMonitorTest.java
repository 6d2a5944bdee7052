package io.jetstream.kafka.core.environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperatingPointMonitorTest {

    private static final long MS = 1_000_000L;
    private static final int BATCH_WIRE_BYTES = 10_000;
    private static final int BATCH_RECORDS = 20;

    @Test
    void everyCallOfTheBatchPolicyIsForwardedWithItsArguments() throws Exception {
        BatchDecision caps = new BatchDecision(10, 1_000, Duration.ofMillis(5), 4, 100_000);
        List<String> forwarded = new ArrayList<>();
        BatchPolicy recording = (BatchPolicy) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BatchPolicy.class}, (proxy, method, args) -> {
                    forwarded.add(method.getName() + Arrays.toString(args));
                    return method.getName().equals("decision") ? caps : null;
                });
        OperatingPointMonitor monitor = new OperatingPointMonitor(recording);
        List<String> expected = new ArrayList<>();

        for (Method method : BatchPolicy.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Object[] args = new Object[method.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                // distinct values, so an argument dropped or swapped shows
                args[i] = method.getParameterTypes()[i] == int.class ? (Object) (i + 1) : (Object) (long) (i + 1);
            }
            Object answer = method.invoke(monitor, args);
            expected.add(method.getName() + Arrays.toString(args));
            if (method.getName().equals("decision")) {
                assertThat(answer).isSameAs(caps);
            }
        }

        assertThat(expected).hasSizeGreaterThanOrEqualTo(9);
        assertThat(forwarded).containsExactlyElementsOf(expected);
        assertThat(monitor.policy()).isSameAs(recording);
    }

    @Test
    void aWindowThatAdmitsOnlyWhatTheRoundTripAllowsBindsAsTheRoundTripUnderTheFixedPolicy() {
        // 4 batches of 10 kB per 100 ms round trip: 400 kB/s, whatever the link could carry
        OperatingPointMonitor monitor = new OperatingPointMonitor(new FixedBatchPolicy(new BatchDecision(BATCH_RECORDS,
                1 << 20, Duration.ofMillis(5), 4, 64L << 20)));
        long now = 0;
        for (int round = 0; round < 100; round++) {
            for (int b = 0; b < 4; b++) {
                send(monitor, now);
            }
            monitor.onBacklog(5_000, 5_000_000, now);
            long receipt = now + 80 * MS;
            long ack = now + 100 * MS;
            for (int b = 0; b < 4; b++) {
                monitor.onBatchReceived(BATCH_RECORDS, BATCH_WIRE_BYTES, now, receipt);
                monitor.onBatchAcked(BATCH_RECORDS, BATCH_WIRE_BYTES, now, ack, now - 5 * MS);
            }
            now = ack;
        }
        for (int b = 0; b < 4; b++) {
            send(monitor, now); // the next round is on its way when the operator looks
        }

        OperatingPoint point = monitor.operatingPoint(now);

        assertThat(point.baseRttNanos()).as("from the receipts").isEqualTo(80e6);
        assertThat(point.oneWayDelayMs()).isEqualTo(40);
        assertThat(point.meanRecordBytes()).isCloseTo(500, within(1e-6));
        assertThat(point.recordsPerBatch()).isCloseTo(BATCH_RECORDS, within(1e-6));
        assertThat(point.sentWireBytesPerSecond()).isCloseTo(400_000, within(40_000.0));
        assertThat(point.peakDeliveredBytesPerSecond()).isCloseTo(400_000, within(60_000.0));
        assertThat(point.pathMeasuredAtBottleneck()).as("nothing ever queued").isFalse();
        assertThat(point.windowBatches()).isEqualTo(4);
        assertThat(point.windowFullness()).as("full but for instants").isGreaterThan(0.95);
        assertThat(point.backlogBytes()).isEqualTo(5_000_000);
        assertThat(point.activePartitions()).isEqualTo(6);
        Binding binding = Binding.of(point, false, CpuLoad.UNKNOWN);
        assertThat(binding.constraint()).isEqualTo(BindingConstraint.ROUND_TRIP);
        assertThat(binding.evidence()).startsWith("window ").contains("(4/4 batches)").endsWith("RTT 80 ms");
    }

    @Test
    void aLinkThatQueuesTheBatchesBindsAsTheLinkAndItsRateIsTheUplink() {
        // the link serves a 10 kB batch in 10 ms (1 MB/s) plus a 100 ms round trip; 64 batches in flight
        OperatingPointMonitor monitor = new OperatingPointMonitor(new FixedBatchPolicy(new BatchDecision(BATCH_RECORDS,
                1 << 20, Duration.ofMillis(5), 64, 64L << 20)));
        Deque<Long> sentAt = new ArrayDeque<>();
        long now = 0;
        for (int b = 0; b < 64; b++) {
            send(monitor, now);
            sentAt.add(now);
        }
        long linkFree = 0;
        for (int i = 0; i < 1_000; i++) {
            long sent = sentAt.poll();
            linkFree = Math.max(sent, linkFree) + 10 * MS;
            long ack = linkFree + 100 * MS;
            now = ack;
            monitor.onBatchReceived(BATCH_RECORDS, BATCH_WIRE_BYTES, sent, ack - 10 * MS);
            monitor.onBatchAcked(BATCH_RECORDS, BATCH_WIRE_BYTES, sent, ack, sent);
            monitor.onBacklog(5_000, 5_000_000, now);
            send(monitor, now);
            sentAt.add(now);
        }

        OperatingPoint point = monitor.operatingPoint(now);

        assertThat(point.pathMeasuredAtBottleneck()).isTrue();
        assertThat(point.pathThroughputBytesPerSecond()).isCloseTo(1e6, within(50_000.0));
        assertThat(point.linkUtilisation()).isGreaterThan(0.9);
        Binding binding = Binding.of(point, false, CpuLoad.UNKNOWN);
        assertThat(binding.constraint()).isEqualTo(BindingConstraint.LINK);
        assertThat(binding.evidence()).contains("(measured at its bottleneck)");
        GridMatch cell = GridCell.nearest(GridCell.GRID, point.coordinates(true, 6));
        assertThat(cell.cell().name()).as("8 Mbit/s seen full: a 10 Mbit/s cell").startsWith("up10");
        assertThat(cell.differsOn()).allSatisfy(d -> assertThat(d).doesNotStartWith("uplink"));
    }

    @Test
    void aLightLoadBindsNothingAndTheRoundTripIsTheReceiptsNotTheHeartbeats() {
        OperatingPointMonitor monitor = lightLoadMonitor();
        long now = lightLoad(monitor);

        OperatingPoint point = monitor.operatingPoint(now);

        assertThat(point.baseRttNanos()).as("the receipts', not the heartbeats' to the first relay").isEqualTo(50e6);
        assertThat(point.windowBatches()).as("the caps the policy gave").isEqualTo(1_024);
        assertThat(Binding.of(point, false, new CpuLoad(0.1, 2, 0.2)).constraint()).isEqualTo(BindingConstraint.NONE);
        GridMatch cell = GridCell.nearest(GridCell.GRID, point.coordinates(false, 6));
        assertThat(cell.cell().name()).isEqualTo("default");
        assertThat(cell.differsOn()).anySatisfy(d -> assertThat(d).startsWith("uplink at least"))
                .contains("records of 500 B measured");
    }

    @Test
    void anIdleTaskKeepsThePathsRoundTripNotTheHeartbeatsToItsFirstRelay() {
        OperatingPointMonitor monitor = lightLoadMonitor();
        long now = lightLoad(monitor);
        assertThat(monitor.operatingPoint(now).baseRttNanos()).isEqualTo(50e6);
        // then two minutes without records: only the heartbeats to the ingress relay on the task's own host
        for (int s = 0; s < 120; s++) {
            now += 1_000 * MS;
            monitor.onRttSample(MS / 10, now);
        }

        OperatingPoint idle = monitor.operatingPoint(now);

        assertThat(idle.baseRttNanos()).as("the path measured last, not the 0.1 ms hop to the first relay")
                .isEqualTo(50e6);
        assertThat(GridCell.nearest(GridCell.GRID, idle.coordinates(false, 6)).cell().name()).isNotEqualTo("d5");
    }

    @Test
    void nothingMeasuredYetReadsAsUnknownNotAsZero() {
        OperatingPointMonitor monitor = new OperatingPointMonitor(new FixedBatchPolicy(new BatchDecision(10, 1_000,
                Duration.ofMillis(5), 4, 100_000)));

        OperatingPoint point = monitor.operatingPoint(0);

        assertThat(point.baseRttNanos()).isNaN();
        assertThat(point.meanRecordBytes()).isNaN();
        assertThat(point.recordsPerBatch()).isNaN();
        assertThat(point.windowBatches()).as("asked the policy").isEqualTo(4);
        assertThat(Binding.of(point, false, CpuLoad.UNKNOWN).constraint()).isEqualTo(BindingConstraint.NONE);
        assertThat(GridCell.nearest(GridCell.GRID, point.coordinates(false, 0)).cell().name()).isEqualTo("default");
    }

    /** A monitor over the fixed policy with a window far larger than a light load fills. */
    private static OperatingPointMonitor lightLoadMonitor() {
        return new OperatingPointMonitor(new FixedBatchPolicy(new BatchDecision(500, 1 << 20, Duration.ofMillis(5),
                1_024, 64L << 20)));
    }

    /**
     * Three seconds of a light load: a batch every 10 ms, its receipt from the egress relay 50 ms after it
     * was sent, its acknowledgement 60 ms after, heartbeats to the first relay of 0.1 ms, no backlog.
     *
     * @return the time of the last batch
     */
    private static long lightLoad(OperatingPointMonitor monitor) {
        long now = 0;
        for (int i = 0; i < 300; i++) {
            now += 10 * MS;
            send(monitor, now);
            monitor.onBatchReceived(BATCH_RECORDS, BATCH_WIRE_BYTES, now - 60 * MS, now - 10 * MS);
            monitor.onBatchAcked(BATCH_RECORDS, BATCH_WIRE_BYTES, now - 60 * MS, now, now - 70 * MS);
            monitor.onRttSample(MS / 10, now);
            monitor.onBacklog(0, 0, now);
        }
        return now;
    }

    /** A put of 20 records of 500 B on 6 partitions, sealed into one batch and sent at once. */
    private static void send(BatchPolicy policy, long now) {
        policy.onActiveStreams(6, now);
        policy.onRecordsArrived(BATCH_RECORDS, BATCH_RECORDS * 500L, now);
        policy.decision(now);
        policy.onBatchSent(BATCH_RECORDS, BATCH_RECORDS * 500L, BATCH_WIRE_BYTES, 10_000, now);
    }
}
