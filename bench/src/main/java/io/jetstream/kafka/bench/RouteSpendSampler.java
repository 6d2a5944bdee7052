package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples an ingress relay's per-route money, bytes and round trips from its {@code /metrics} at a fixed interval, on a
 * thread of its own, from construction until {@link #close}: the spend over time that the spend cap is checked against.
 * A sample the relay did not answer is skipped. Thread-safe.
 */
final class RouteSpendSampler implements AutoCloseable {

    static final String SPENT = "jetstream_relay_route_spent_total";
    static final String BYTES_OUT = "jetstream_relay_route_bytes_out_total";
    static final String RTT = "jetstream_relay_route_rtt_seconds";
    static final String RANKING_RTT = "jetstream_relay_route_ranking_rtt_seconds";
    static final String PEER_RTT = "jetstream_relay_peer_rtt_seconds";

    /**
     * One reading: per route, money spent, bytes sent, base round trip and the round trip the scheduler ranks the
     * route by, at {@code nanos} (System.nanoTime).
     */
    record Sample(long nanos, Map<String, Double> spent, Map<String, Double> bytes, Map<String, Double> rttSeconds,
                  Map<String, Double> rankingRttSeconds) {

        double totalSpent() {
            return spent.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        double totalBytes() {
            return bytes.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    private final Supplier<String> metrics;
    private final ScheduledExecutorService executor;
    private final List<Sample> samples = new ArrayList<>();

    /** @param metrics the relay's current {@code /metrics} text, empty when it does not answer */
    RouteSpendSampler(Supplier<String> metrics, Duration interval) {
        this.metrics = metrics;
        this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "route-spend-sampler");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleAtFixedRate(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Takes one more sample now (the final reading), then stops sampling; idempotent. */
    @Override
    public void close() {
        if (!executor.isShutdown()) {
            executor.shutdownNow();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sample();
        }
    }

    /** The samples so far, oldest first. */
    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    private void sample() {
        String text = metrics.get();
        if (text.isEmpty()) {
            return;
        }
        Sample sample = parse(System.nanoTime(), text);
        synchronized (this) {
            samples.add(sample);
        }
    }

    static Sample parse(long nanos, String text) {
        return new Sample(nanos, perRoute(text, SPENT), perRoute(text, BYTES_OUT), perRoute(text, RTT),
                perRoute(text, RANKING_RTT));
    }

    /** {@code metric{...route="r"...} value} lines, summed per route (over destinations). */
    static Map<String, Double> perRoute(String text, String metric) {
        return perLabel(text, metric, "route");
    }

    /** {@code metric{...label="v"...} value} lines, summed per value of {@code label}. */
    static Map<String, Double> perLabel(String text, String metric, String label) {
        Pattern labelValue = Pattern.compile(Pattern.quote(label) + "=\"([^\"]*)\"");
        Pattern line = Pattern.compile("^" + Pattern.quote(metric) + "\\{([^}]*)}\\s+(\\S+)", Pattern.MULTILINE);
        Map<String, Double> values = new TreeMap<>();
        Matcher m = line.matcher(text);
        while (m.find()) {
            Matcher route = labelValue.matcher(m.group(1));
            if (route.find()) {
                try {
                    values.merge(route.group(1), Double.parseDouble(m.group(2)), Double::sum);
                } catch (NumberFormatException e) {
                    // not a number (NaN is parsed; anything else is not a sample of this metric)
                }
            }
        }
        return values;
    }
}
