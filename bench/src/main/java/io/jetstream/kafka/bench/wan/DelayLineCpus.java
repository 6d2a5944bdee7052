package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * Where the delay line runs and where the packets it writes back are processed: the delay line stays on the first CPU
 * this process may use, and Receive Packet Steering on the core's TUN hands every written packet to the other CPUs.
 *
 * <p>Why: writing a packet into a TUN runs the kernel's whole receive path inside the {@code write()} call unless RPS
 * moves it to another CPU's backlog: the core forwards it, and the destination host's TCP stack receives it and
 * answers with an ACK that travels back through the core, about 30 us a packet. On a 2-core machine at ~15k packets/s
 * that made the delay line itself the bottleneck: it fell up to 20 ms behind (p99 13-20 ms in three runs). Pinned to
 * CPU 0 with RPS to CPU 1, the same load gave p50 60 us, p99 0.25 ms and p99.9 0.6-0.75 ms of lateness. With one CPU
 * there is nothing to split and both are left alone.
 *
 * @param delayLineCpu the CPU the delay line stays on; empty with fewer than two CPUs
 * @param rpsMask      the {@code rps_cpus} bitmap of the TUN's receive queue (hex, comma every 32 CPUs), all allowed CPUs
 *                     but the delay line's; empty with fewer than two CPUs
 */
record DelayLineCpus(OptionalInt delayLineCpu, String rpsMask) {

    static final DelayLineCpus NONE = new DelayLineCpus(OptionalInt.empty(), "");

    /** The split for the CPUs this process may run on ({@code Cpus_allowed_list} of {@code /proc/self/status}). */
    static DelayLineCpus forThisProcess() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Cpus_allowed_list:"))
                    .map(line -> of(parseCpuList(line.substring("Cpus_allowed_list:".length()))))
                    .findFirst().orElse(NONE);
        } catch (IOException | IllegalArgumentException e) {
            return NONE;
        }
    }

    static DelayLineCpus of(List<Integer> allowedCpus) {
        TreeSet<Integer> cpus = new TreeSet<>(allowedCpus);
        if (cpus.size() < 2) {
            return NONE;
        }
        int delayLineCpu = cpus.pollFirst();
        return new DelayLineCpus(OptionalInt.of(delayLineCpu), rpsMask(cpus));
    }

    /** Parses a kernel CPU list such as {@code 0-1} or {@code 0,2-5,8}. */
    static List<Integer> parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.strip().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            String[] range = part.strip().split("-", 2);
            int first = Integer.parseInt(range[0]);
            int last = range.length == 2 ? Integer.parseInt(range[1]) : first;
            if (first < 0 || last < first) {
                throw new IllegalArgumentException("not a CPU list: '" + list + "'");
            }
            for (int cpu = first; cpu <= last; cpu++) {
                cpus.add(cpu);
            }
        }
        return cpus;
    }

    /** The kernel's bitmap format: hex, in groups of 8 digits (32 CPUs) separated by commas. */
    static String rpsMask(Iterable<Integer> cpus) {
        BigInteger bits = BigInteger.ZERO;
        for (int cpu : cpus) {
            bits = bits.setBit(cpu);
        }
        String hex = bits.toString(16);
        StringBuilder grouped = new StringBuilder();
        for (int end = hex.length(); end > 0; end -= 8) {
            String group = hex.substring(Math.max(0, end - 8), end);
            grouped.insert(0, grouped.length() == 0 ? group : group + ",");
        }
        return grouped.toString();
    }
}
