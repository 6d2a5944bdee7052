package io.jetstream.kafka.bench;

import java.util.Map;
import java.util.Objects;

/**
 * One reading of every counter the benchmark watches, taken at {@code nanos} ({@link System#nanoTime}).
 *
 * @param nanos          when it was taken
 * @param uplinkTxBytes  bytes sent so far on each source host's capped WAN uplink, by host name
 * @param processTicks   CPU ticks (user + system) so far of each watched process, by process name
 * @param jitTicks       of those, the ticks of each process's JIT compiler threads
 * @param machine        the machine's busy and total CPU ticks
 * @param recordBytesAtB record bytes (key + value + headers) the probe has seen arrive at site B so far
 */
record Reading(long nanos, Map<String, Long> uplinkTxBytes, Map<String, Long> processTicks,
               Map<String, Long> jitTicks, ProcStat.MachineTicks machine, long recordBytesAtB) {

    Reading {
        uplinkTxBytes = Map.copyOf(uplinkTxBytes);
        processTicks = Map.copyOf(processTicks);
        jitTicks = Map.copyOf(jitTicks);
        Objects.requireNonNull(machine, "machine");
    }
}
