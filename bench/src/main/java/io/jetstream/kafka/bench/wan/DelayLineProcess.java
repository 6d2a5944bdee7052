package io.jetstream.kafka.bench.wan;


import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running delay line: the compiled {@code delayline} started inside the core namespace with {@code ip netns exec}
 * (which execs, so {@link #pid()} is the delay line's own pid), attached to the core's TUN. Its output goes to
 * {@code delayline-<prefix>.log} and its counters to {@code delayline-<prefix>.stats} in the work directory.
 *
 * <p>Per-source delays: {@code delayline-<prefix>.delays} lists {@code <IPv4 source> <one-way delay in us>}, one line
 * per host, so every host's packets have a FIFO (a delay class) of their own; {@link #applyDelays} rewrites it and
 * signals the delay line (SIGUSR1), which re-reads it and confirms with the file's generation number. Within a class
 * due times never decrease, so lowering a delay never reorders a host's packets.
 *
 * <p>Lifecycle: {@link #start} returns once the program reports that it holds the TUN with its ring locked in memory;
 * {@link #close} sends SIGTERM, then SIGKILL if it has not exited within {@link #STOP_GRACE}, and logs the final
 * counters. Thread-safe.
 */
final class DelayLineProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DelayLineProcess.class);
    static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
    private static final File NULL_DEVICE = new File("/dev/null");
    static final Duration STOP_GRACE = Duration.ofSeconds(2);
    /** SCHED_FIFO priority: above every ordinary process, below the kernel's own real-time threads (99). */
    static final int PRIORITY = 50;
    /** Packets per second the ring is sized for: far above what the capped uplinks can send (~30k/s at defaults). */
    static final long DESIGN_PACKETS_PER_SECOND = 100_000;
    static final int MIN_SLOTS = 4096;
    static final int MAX_SLOTS = 65_536;
    private static final String READY = "delayline ready";
    private static final String EXIT = "delayline exit";
    private static final String DELAYS = "delayline delays generation=";
    /** How much longer than the base delay per-host delays may hold packets with the ring still large enough. */
    static final Duration EXTRA_DELAY_HEADROOM = Duration.ofMillis(100);

    private final Process process;
    private final Path logFile;
    private final Path statsFile;
    private final Path delaysFile;
    private final CommandRunner runner;
    private long generation;

    private DelayLineProcess(Process process, Path logFile, Path statsFile, Path delaysFile, CommandRunner runner) {
        this.process = process;
        this.logFile = logFile;
        this.statsFile = statsFile;
        this.delaysFile = delaysFile;
        this.runner = runner;
    }

    /**
     * Starts the delay line in {@code namespace} and waits until it is ready; kills it if it does not get ready.
     *
     * @param delays the one-way delay of each source address (every host's), the other packets get
     *               {@code oneWayDelay}
     */
    static DelayLineProcess start(Path binary, String namespace, Duration oneWayDelay, Map<String, Duration> delays,
                                  DelayLineCpus cpus, Path workDir, String prefix, CommandRunner runner)
            throws IOException, InterruptedException {
        Path logFile = workDir.resolve("delayline-" + prefix + ".log");
        Path statsFile = workDir.resolve("delayline-" + prefix + ".stats");
        Path delaysFile = workDir.resolve("delayline-" + prefix + ".delays");
        Files.deleteIfExists(statsFile);
        writeDelays(delaysFile, 0, delays);
        List<String> command = command(binary, namespace, oneWayDelay, cpus, statsFile, delaysFile);
        log.debug("Starting {}", CommandRunner.render(command));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(NULL_DEVICE))
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        DelayLineProcess delayLine = new DelayLineProcess(process, logFile, statsFile, delaysFile, runner);
        boolean ready = false;
        try {
            await("the delay line to hold the TUN").atMost(READY_TIMEOUT).ignoreExceptions()
                    .until(() -> !process.isAlive() || delayLine.logContains(READY));
            if (!process.isAlive()) {
                throw new IOException("The delay line exited with code " + process.exitValue() + ": "
                        + delayLine.logText().strip());
            }
            ready = true;
        } catch (ConditionTimeoutException e) {
            throw new IOException("The delay line did not get ready within " + READY_TIMEOUT.toSeconds() + " s: "
                    + delayLine.logText().strip(), e);
        } finally {
            if (!ready) {
                delayLine.close();
            }
        }
        String readyLine = delayLine.logLine(READY).orElse(READY);
        if (!readyLine.contains("sched=fifo") || !readyLine.contains("mlock=ok")) {
            log.warn("The delay line runs without real-time scheduling or locked memory, expect more jitter: {}",
                    readyLine);
        }
        log.info("Delay line pid {} in {}: {}", process.pid(), namespace, readyLine);
        return delayLine;
    }

    /**
     * {@code ip netns exec NS delayline --tun dl0 --delay-us N --slots N --priority P [--cpu C] --stats-file F
     * --control-file D}; the ring is sized for the base delay plus {@link #EXTRA_DELAY_HEADROOM}.
     */
    static List<String> command(Path binary, String namespace, Duration oneWayDelay, DelayLineCpus cpus,
                                Path statsFile, Path delaysFile) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, binary.toString()));
        command.addAll(List.of("--tun", AddressPlan.TUN_INTERFACE,
                "--delay-us", Long.toString(oneWayDelay.toNanos() / 1_000),
                "--slots", Integer.toString(ringSlots(oneWayDelay.plus(EXTRA_DELAY_HEADROOM))),
                "--priority", Integer.toString(PRIORITY)));
        cpus.delayLineCpu().ifPresent(cpu -> command.addAll(List.of("--cpu", Integer.toString(cpu))));
        command.addAll(List.of("--stats-file", statsFile.toString(), "--control-file", delaysFile.toString()));
        return command;
    }

    /** The control file's text: {@code generation N}, then {@code <address> <delay in us>} per source, in order. */
    static String delaysText(long generation, Map<String, Duration> delays) {
        StringBuilder text = new StringBuilder("generation ").append(generation).append('\n');
        new TreeMap<>(delays).forEach((address, delay) -> text.append(address).append(' ')
                .append(delay.toNanos() / 1_000).append('\n'));
        return text.toString();
    }

    /**
     * Gives each listed source address its one-way delay, and returns once the delay line has applied them (packets
     * already held keep their due times). Sources not listed get the base delay.
     *
     * @throws IOException if the delay line does not confirm within {@link #READY_TIMEOUT}
     */
    synchronized void applyDelays(Map<String, Duration> delays) throws IOException, InterruptedException {
        long next = generation + 1;
        writeDelays(delaysFile, next, delays);
        runner.run(List.of("kill", "-USR1", Long.toString(process.pid())));
        String confirmation = DELAYS + next + " ";
        try {
            await("the delay line to apply delays generation " + next).atMost(READY_TIMEOUT)
                    .until(() -> !process.isAlive() || logContains(confirmation));
        } catch (ConditionTimeoutException e) {
            throw new IOException("The delay line did not apply new delays within " + READY_TIMEOUT.toSeconds()
                    + " s: " + logText().strip(), e);
        }
        if (!process.isAlive()) {
            throw new IOException("The delay line exited with code " + process.exitValue() + ": "
                    + logText().strip());
        }
        generation = next;
        log.info("Delay line pid {}: {}", process.pid(), logLine(confirmation).orElse(confirmation));
    }

    /** Written to a temporary file and moved over the old one, so the delay line never reads half a file. */
    private static void writeDelays(Path file, long generation, Map<String, Duration> delays) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, delaysText(generation, delays), StandardCharsets.US_ASCII);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Ring size, a power of two: every packet {@link #DESIGN_PACKETS_PER_SECOND} could bring during the delay plus 20
     * ms of slack, within [{@value #MIN_SLOTS}, {@value #MAX_SLOTS}] (2 KiB each: 8 to 128 MiB of locked memory).
     */
    static int ringSlots(Duration oneWayDelay) {
        long needed = DESIGN_PACKETS_PER_SECOND * (oneWayDelay.toMillis() + 20) / 1000;
        int slots = MIN_SLOTS;
        while (slots < needed && slots < MAX_SLOTS) {
            slots *= 2;
        }
        return slots;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The counters the delay line last wrote (every second); empty before the first write. */
    Optional<DelayLineStats> stats() {
        try {
            return Files.exists(statsFile)
                    ? DelayLineStats.parse(Files.readString(statsFile, StandardCharsets.US_ASCII))
                    : Optional.empty();
        } catch (IOException e) {
            log.debug("Cannot read the delay line's counters from {}", statsFile, e);
            return Optional.empty();
        }
    }

    /** Stops the delay line: SIGTERM, then SIGKILL after {@link #STOP_GRACE}; idempotent. */
    @Override
    public void close() {
        boolean interrupted = false;
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("Delay line pid {} ignored SIGTERM for {} ms; sending SIGKILL", process.pid(),
                            STOP_GRACE.toMillis());
                    process.destroyForcibly();
                    process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            interrupted = true;
            process.destroyForcibly();
        }
        logLine(EXIT).ifPresentOrElse(line -> log.info("Delay line pid {} stopped: {}", process.pid(), line),
                () -> log.info("Delay line pid {} stopped without counters (exit code {})", process.pid(),
                        process.isAlive() ? "none yet" : process.exitValue()));
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean logContains(String marker) {
        return logLine(marker).isPresent();
    }

    private Optional<String> logLine(String marker) {
        return logText().lines().filter(line -> line.startsWith(marker)).reduce((first, second) -> second);
    }

    private String logText() {
        try {
            return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }
}
