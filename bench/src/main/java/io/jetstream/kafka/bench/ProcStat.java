package io.jetstream.kafka.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * CPU time from {@code /proc}: a process's user + system time from {@code /proc/<pid>/stat}, and
 * the machine's busy and total time from the first line of {@code /proc/stat}, in clock ticks.
 * The parsers are pure (they take the file's text) so they are tested on fixed input.
 */
final class ProcStat {

    /** Machine-wide CPU ticks: busy (everything but idle and iowait) and total, summed over all CPUs. */
    record MachineTicks(long busy, long total) {
    }

    private static final long DEFAULT_TICKS_PER_SECOND = 100;

    private ProcStat() {
    }

    /**
     * utime + stime (fields 14 and 15) of a {@code /proc/<pid>/stat} line. The command name (field 2)
     * is in parentheses and may hold spaces and parentheses itself, so fields are counted after the
     * last ')'.
     */
    static long processTicks(String statLine) {
        int close = statLine.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + abbreviate(statLine));
        }
        String[] rest = statLine.substring(close + 1).trim().split("\\s+");
        // rest[0] is field 3 (state): field n is rest[n - 3].
        if (rest.length < 13) {
            throw new IllegalArgumentException("too few fields in /proc/<pid>/stat line: " + abbreviate(statLine));
        }
        return Long.parseLong(rest[11]) + Long.parseLong(rest[12]);
    }

    /**
     * Whether a thread's command name (field 2 of {@code /proc/<pid>/task/<tid>/stat}) is one of
     * HotSpot's JIT compiler threads ({@code C1 CompilerThread0}, {@code C2 CompilerThre} as the
     * kernel cuts it to 15 characters).
     */
    static boolean isJitCompilerThread(String statLine) {
        int open = statLine.indexOf('(');
        int close = statLine.lastIndexOf(')');
        if (open < 0 || close < open) {
            return false;
        }
        String name = statLine.substring(open + 1, close);
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /**
     * CPU ticks of a live process's JIT compiler threads (see {@link #isJitCompilerThread}); 0 when
     * it is gone. A JVM compiles its hot code for minutes after it starts: this is the share of its
     * CPU that a longer run would not pay again.
     */
    static long readJitTicks(long pid) {
        if (pid <= 0) {
            return 0;
        }
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String line = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                    if (isJitCompilerThread(line)) {
                        ticks += processTicks(line);
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return ticks;
    }

    /** Busy and total ticks of the aggregate {@code cpu} line of {@code /proc/stat}. */
    static MachineTicks machineTicks(String procStat) {
        for (String line : procStat.split("\n")) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+");
                long total = 0;
                // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is
                // already counted in user and nice, so only the first eight add up to the total.
                for (int i = 1; i < Math.min(f.length, 9); i++) {
                    total += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
                return new MachineTicks(total - idle, total);
            }
        }
        throw new IllegalArgumentException("no aggregate 'cpu ' line in /proc/stat");
    }

    /** CPU ticks of a live process; empty when it is gone or /proc is not there. */
    static OptionalLong readProcessTicks(long pid) {
        if (pid <= 0) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(processTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"),
                    StandardCharsets.US_ASCII)));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** The machine's ticks, or zeros where /proc/stat is missing. */
    static MachineTicks readMachine() {
        try {
            return machineTicks(Files.readString(Path.of("/proc/stat"), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return new MachineTicks(0, 0);
        }
    }

    /** USER_HZ ({@code getconf CLK_TCK}); 100, its value on every common Linux, when it cannot be asked. */
    static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            // fall through to the default
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return DEFAULT_TICKS_PER_SECOND;
    }

    private static String abbreviate(String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
