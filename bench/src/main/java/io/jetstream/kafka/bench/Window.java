package io.jetstream.kafka.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What happened between two {@link Reading}s: seconds elapsed, wire bytes and MB/s per uplink, CPU
 * cores per process and for the whole machine. MB are 10^6 bytes. Pure arithmetic on the readings.
 *
 * @param seconds           time between the readings
 * @param uplinkBytes       bytes sent on each uplink in the window
 * @param processCpuSeconds CPU seconds each process used in the window (processes present in both readings)
 * @param jitCpuSeconds     of those, the seconds its JIT compiler threads used
 * @param machineBusyCores  machine-wide busy CPU, in cores (busy ticks per second)
 * @param recordBytesAtB    record bytes that arrived at site B in the window
 */
record Window(double seconds, Map<String, Long> uplinkBytes, Map<String, Double> processCpuSeconds,
              Map<String, Double> jitCpuSeconds, double machineBusyCores, long recordBytesAtB) {

    static Window between(Reading from, Reading to, long ticksPerSecond) {
        double seconds = Math.max(1e-9, (to.nanos() - from.nanos()) / 1e9);
        Map<String, Long> uplinks = new TreeMap<>();
        to.uplinkTxBytes().forEach((uplink, bytes) ->
                uplinks.put(uplink, bytes - from.uplinkTxBytes().getOrDefault(uplink, bytes)));
        Map<String, Double> cpu = new TreeMap<>();
        to.processTicks().forEach((process, ticks) -> {
            Long before = from.processTicks().get(process);
            if (before != null && ticks >= before) {
                cpu.put(process, (ticks - before) / (double) ticksPerSecond);
            }
        });
        Map<String, Double> jit = new TreeMap<>();
        to.jitTicks().forEach((process, ticks) -> {
            Long before = from.jitTicks().get(process);
            if (before != null && ticks >= before && cpu.containsKey(process)) {
                jit.put(process, (ticks - before) / (double) ticksPerSecond);
            }
        });
        double busyCores = (to.machine().busy() - from.machine().busy()) / (double) ticksPerSecond / seconds;
        return new Window(seconds, uplinks, cpu, jit, busyCores, to.recordBytesAtB() - from.recordBytesAtB());
    }

    /** MB/s sent on each uplink. */
    Map<String, Double> uplinkMbPerSecond() {
        Map<String, Double> rates = new LinkedHashMap<>();
        uplinkBytes.forEach((uplink, bytes) -> rates.put(uplink, bytes / 1e6 / seconds));
        return rates;
    }

    /** MB/s over all uplinks together. */
    double wireMbPerSecond() {
        return wireBytes() / 1e6 / seconds;
    }

    long wireBytes() {
        return uplinkBytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Cores each process used on average (CPU seconds per second). */
    Map<String, Double> cores() {
        Map<String, Double> cores = new LinkedHashMap<>();
        processCpuSeconds.forEach((process, cpuSeconds) -> cores.put(process, cpuSeconds / seconds));
        return cores;
    }

    /** Cores each process's JIT compilers used on average. */
    Map<String, Double> jitCores() {
        Map<String, Double> cores = new LinkedHashMap<>();
        jitCpuSeconds.forEach((process, cpuSeconds) -> cores.put(process, cpuSeconds / seconds));
        return cores;
    }

    /** CPU seconds of the named processes together (those not watched count 0). */
    double cpuSecondsOf(List<String> processes) {
        return processes.stream().mapToDouble(p -> processCpuSeconds.getOrDefault(p, 0.0)).sum();
    }

    /** Records MB/s that arrived at site B. */
    double recordMbPerSecondAtB() {
        return recordBytesAtB / 1e6 / seconds;
    }
}
