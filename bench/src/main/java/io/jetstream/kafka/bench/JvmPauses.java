package io.jetstream.kafka.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Stop-the-world pauses of the benchmark's JVMs, read from their safepoint logs
 * ({@code -Xlog:safepoint=info:file=...:timemillis}, one line per pause: garbage collections and
 * every other VM operation that stops all threads). A record that is in any JVM on its path while
 * that JVM is stopped waits for the pause to end, so the pauses of a phase explain part of its
 * latency tail: with 1,000 records/s a 100 ms pause delays about a hundred records by up to 100 ms.
 */
final class JvmPauses {

    /** A pause at least this long shows in the latency tail at the latency phase's rates. */
    static final double LONG_PAUSE_MS = 20;

    /** The bench JVM's own safepoint logs started so far (the grid runs many plans in one JVM). */
    private static final java.util.Set<Path> OWN_LOGS = new java.util.HashSet<>();

    /** {@code [1796184136442ms] Safepoint "G1CollectForAllocation", Time since last: ..., Total: 104942340 ns}. */
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ms\\] Safepoint \"[^\"]*\".*\\bTotal: (\\d+) ns");

    private JvmPauses() {
    }

    /**
     * The pauses of one JVM that ended within a window.
     *
     * @param count            pauses in the window
     * @param totalMs          their length together
     * @param maxMs            the longest
     * @param longPauses       pauses of at least {@link #LONG_PAUSE_MS}
     */
    record Pauses(int count, double totalMs, double maxMs, int longPauses) {

        static final Pauses NONE = new Pauses(0, 0, 0, 0);
    }

    /** The pauses in {@code log} that ended between {@code fromMillis} and {@code toMillis} (epoch ms). */
    static Pauses read(Path log, long fromMillis, long toMillis) throws IOException {
        return parse(Files.readAllLines(log), fromMillis, toMillis);
    }

    static Pauses parse(List<String> lines, long fromMillis, long toMillis) {
        int count = 0;
        int longOnes = 0;
        double total = 0;
        double max = 0;
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            long endMillis = Long.parseLong(m.group(1));
            if (endMillis < fromMillis || endMillis > toMillis) {
                continue;
            }
            double ms = Long.parseLong(m.group(2)) / 1e6;
            count++;
            total += ms;
            max = Math.max(max, ms);
            if (ms >= LONG_PAUSE_MS) {
                longOnes++;
            }
        }
        return new Pauses(count, round(total), round(max), longOnes);
    }

    /**
     * Starts the same log for the running JVM (the bench's own: it produces at A and times arrivals
     * at B, so its pauses count too), through the {@code VM.log} diagnostic command.
     *
     * @return the log file, or null when the JVM refused (the report then has no figure for it)
     */
    static Path logOwnPauses(Path dir) {
        Path file = dir.resolve("safepoints-bench-" + ProcessHandle.current().pid() + ".log");
        synchronized (OWN_LOGS) {
            // the grid runs many plans in one environment: configure the JVM's log once per file
            if (OWN_LOGS.contains(file)) {
                return file;
            }
            Path configured = configureOwnLog(dir, file);
            if (configured != null) {
                OWN_LOGS.add(file);
            }
            return configured;
        }
    }

    private static Path configureOwnLog(Path dir, Path file) {
        try {
            Files.createDirectories(dir);
            ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmLog",
                    new Object[] {new String[] {"output=file=" + file, "what=safepoint=info",
                            "decorators=timemillis"}},
                    new String[] {String[].class.getName()});
            return file;
        } catch (IOException | JMException | RuntimeException e) {
            return null;
        }
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
