package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns consecutive {@link Reading}s into the rates a {@link VariantResult.Timeline} plots. Readings
 * closer than {@link #MIN_SPACING_NANOS} to the previous point are merged into the next one: CPU time
 * counts in 10 ms ticks, so a window of a few ms (a timer catching up after a pause) would show
 * several cores out of one tick.
 */
final class Timelines {

    static final long MIN_SPACING_NANOS = 400_000_000L;

    private Timelines() {
    }

    static VariantResult.Timeline of(List<Reading> readings, long startNanos, long ticksPerSecond,
                                     Map<String, Double> marks) {
        List<Double> seconds = new ArrayList<>();
        Map<String, List<Double>> uplinks = new LinkedHashMap<>();
        List<Double> atB = new ArrayList<>();
        Map<String, List<Double>> cores = new LinkedHashMap<>();
        List<Double> machine = new ArrayList<>();
        TreeSet<String> processes = new TreeSet<>();
        readings.forEach(r -> processes.addAll(r.processTicks().keySet()));
        Reading from = readings.isEmpty() ? null : readings.get(0);
        for (int i = 1; i < readings.size(); i++) {
            Reading to = readings.get(i);
            if (to.nanos() - from.nanos() < MIN_SPACING_NANOS) {
                continue;
            }
            Window window = Window.between(from, to, ticksPerSecond);
            seconds.add(round((to.nanos() - startNanos) / 1e9));
            window.uplinkMbPerSecond().forEach((uplink, rate) ->
                    uplinks.computeIfAbsent(uplink, u -> new ArrayList<>()).add(round(rate)));
            atB.add(round(window.recordMbPerSecondAtB()));
            Map<String, Double> perProcess = window.cores();
            for (String process : processes) {
                // a process not running in this window plots as 0 (it was stopped or not started yet)
                cores.computeIfAbsent(process, p -> new ArrayList<>()).add(round(perProcess.getOrDefault(process, 0.0)));
            }
            machine.add(round(window.machineBusyCores()));
            from = to;
        }
        return new VariantResult.Timeline(seconds, uplinks, atB, cores, machine, marks);
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
