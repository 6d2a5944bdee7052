package io.jetstream.kafka.testkit.site;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child JVM running one main class from the kit's own classpath, its output in a log file.
 *
 * <p>Brokers and Connect workers run as child processes rather than inside the caller's JVM so
 * that a test can kill or stop one the way an operator's machine would (SIGKILL, SIGTERM, a broker
 * down for 30 s), and so that each has its own class loaders, static state and metrics registry.
 *
 * <p>Thread-safety: start/stop are synchronized; the process handle is safe to read from any
 * thread. Every started process is also destroyed by a JVM shutdown hook, so an aborted test run
 * leaves nothing behind: it sends SIGTERM, and SIGKILL only if the child has not stopped 20 s later,
 * so Ctrl-C on the launcher still stops brokers and workers cleanly.
 */
public final class JavaProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JavaProcess.class);
    private static final String SAFEPOINT_LOG_PREFIX = "safepoints-";
    private static volatile Path flightRecordings;

    private final String name;
    private final String mainClass;
    private final List<String> jvmArgs;
    private final List<String> args;
    private final String classpath;
    private final Path logFile;
    private final List<String> commandPrefix;
    private Process process;
    private Thread reaper;
    private Path safepointLog;

    public JavaProcess(String name, String mainClass, List<String> jvmArgs, List<String> args,
                       String classpath, Path logFile) {
        this(name, mainClass, jvmArgs, args, classpath, logFile, List.of());
    }

    /**
     * A child JVM started behind {@code commandPrefix}, e.g. {@code ip netns exec js-a1} to run it on
     * a network-namespace host. The prefix must exec the JVM (keep the process id), so that
     * {@link #pid()}, stop and kill reach the JVM itself.
     */
    public JavaProcess(String name, String mainClass, List<String> jvmArgs, List<String> args,
                       String classpath, Path logFile, List<String> commandPrefix) {
        this.commandPrefix = List.copyOf(commandPrefix);
        this.name = Objects.requireNonNull(name, "name");
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        this.jvmArgs = List.copyOf(jvmArgs);
        this.args = List.copyOf(args);
        this.classpath = Objects.requireNonNull(classpath, "classpath");
        this.logFile = Objects.requireNonNull(logFile, "logFile");
    }

    /**
     * Records every child JVM started from now on with the JDK's Flight Recorder ({@code settings=profile},
     * written at exit to {@code dir/<name>-<millis>.jfr}): {@code ./jetstream bench --jfr DIR}.
     */
    public static void recordFlightsInto(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("--jfr: cannot create " + dir, e);
        }
        flightRecordings = dir;
    }

    /** Whether {@link #recordFlightsInto} was called: a diagnostic run. */
    public static boolean recordingFlights() {
        return flightRecordings != null;
    }

    /** The classpath of the running JVM, which holds Kafka, Connect and the kit. */
    public static String currentClasspath() {
        return System.getProperty("java.class.path");
    }

    /**
     * The running JVM's classpath without this project's own modules (their classes folders and
     * jars): a Connect worker must load JetStream's connectors only from its plugin.path, exactly as
     * a user's worker does, not from its class path.
     */
    public static String classpathWithoutProject(Path projectRoot) {
        String root = projectRoot.toAbsolutePath().normalize().toString();
        List<String> kept = new ArrayList<>();
        for (String entry : currentClasspath().split(java.io.File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            String absolute = Path.of(entry).toAbsolutePath().normalize().toString();
            if (!absolute.startsWith(root + java.io.File.separator)) {
                kept.add(entry);
            }
        }
        return String.join(java.io.File.pathSeparator, kept);
    }

    public synchronized void start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        Files.createDirectories(logFile.getParent());
        List<String> command = new ArrayList<>(commandPrefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        Path recordings = flightRecordings;
        if (recordings != null) {
            command.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + recordings.resolve(name + "-" + System.currentTimeMillis() + ".jfr"));
        }
        // Every stop-the-world pause (GC and other VM operations) with its wall-clock time, one line
        // each: a benchmark charges the pauses of each process to the phase they fell in.
        command.add("-Xlog:safepoint=info:file=" + logFile.getParent().resolve(SAFEPOINT_LOG_PREFIX)
                + "%p.log:timemillis:filecount=0");
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().remove("CLASSPATH");
        process = builder.start();
        Process started = process;
        reaper = new Thread(() -> reap(started), "reap-" + name);
        Runtime.getRuntime().addShutdownHook(reaper);
        safepointLog = logFile.getParent().resolve(SAFEPOINT_LOG_PREFIX + started.pid() + ".log");
        log.debug("Started {} (pid {}), log {}", name, started.pid(), logFile);
    }

    /** Shutdown-hook path: SIGTERM so the child can stop cleanly, SIGKILL if it takes too long. */
    private static void reap(Process child) {
        child.destroy();
        try {
            if (!child.waitFor(20, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /**
     * The JVM's safepoint log of its latest start (one line per stop-the-world pause, see
     * {@code JvmPauses} in the bench), or null before the first start.
     */
    public synchronized Path safepointLog() {
        return safepointLog;
    }

    public synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    public String name() {
        return name;
    }

    public Path logFile() {
        return logFile;
    }

    /** Graceful stop (SIGTERM), then SIGKILL after {@code grace}. Idempotent. */
    public synchronized void stop(Duration grace) {
        if (process == null) {
            return;
        }
        long startNanos = System.nanoTime();
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("{} did not stop within {} ms; killing it", name, grace.toMillis());
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        forget();
        log.debug("Stopped {} in {} ms", name, (System.nanoTime() - startNanos) / 1_000_000);
    }

    /** Abrupt stop (SIGKILL), as a crashed host would. Idempotent. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        forget();
    }

    private void forget() {
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway; nothing to undo
        }
        process = null;
        reaper = null;
    }

    /** The last lines of the log, for failure messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * The last {@code lines} warnings and errors of the log, and Connect's group-membership lines
     * (first line of each, repeated lines once, client reconnection chatter left out), for failure
     * messages.
     */
    public String problems(int lines) {
        try {
            List<String> picked = new java.util.ArrayList<>();
            String previous = null;
            for (String line : Files.readAllLines(logFile)) {
                boolean membership = line.contains("Joined group at generation")
                        || line.contains("coordinator was unreachable");
                if (!(membership || line.contains("] WARN ") || line.contains("] ERROR "))
                        || line.contains("could not be established") || line.contains("Bootstrap broker")) {
                    continue;
                }
                String text = line.substring(Math.min(line.length(), line.indexOf(']') + 1));
                text = text.length() > 300 ? text.substring(0, 300) + "..." : text;
                if (!text.equals(previous)) {
                    picked.add(line.substring(0, Math.min(line.length(), line.indexOf(']') + 1)) + text);
                }
                previous = text;
            }
            return String.join("\n", picked.subList(Math.max(0, picked.size() - lines), picked.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(20));
    }

    @Override
    public String toString() {
        return name + (isAlive() ? " (pid " + pid() + ")" : " (stopped)");
    }
}
