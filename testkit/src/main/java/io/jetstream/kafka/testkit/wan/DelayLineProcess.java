package io.jetstream.kafka.testkit.wan;


import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running delay line: the compiled {@code delayline} started inside the core namespace with {@code ip netns exec}
 * (which execs, so {@link #pid()} is the delay line's own pid), attached to the core's TUN. Its output goes to
 * {@code delayline-<prefix>.log} and its counters to {@code delayline-<prefix>.stats} in the work directory.
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

    private final Process process;
    private final Path logFile;
    private final Path statsFile;

    private DelayLineProcess(Process process, Path logFile, Path statsFile) {
        this.process = process;
        this.logFile = logFile;
        this.statsFile = statsFile;
    }

    /** Starts the delay line in {@code namespace} and waits until it is ready; kills it if it does not get ready. */
    static DelayLineProcess start(Path binary, String namespace, Duration oneWayDelay, DelayLineCpus cpus,
                                  Path workDir, String prefix) throws IOException, InterruptedException {
        Path logFile = workDir.resolve("delayline-" + prefix + ".log");
        Path statsFile = workDir.resolve("delayline-" + prefix + ".stats");
        Files.deleteIfExists(statsFile);
        List<String> command = command(binary, namespace, oneWayDelay, cpus, statsFile);
        log.debug("Starting {}", CommandRunner.render(command));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(NULL_DEVICE))
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        DelayLineProcess delayLine = new DelayLineProcess(process, logFile, statsFile);
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

    /** {@code ip netns exec NS delayline --tun dl0 --delay-us N --slots N --priority P [--cpu C] --stats-file F}. */
    static List<String> command(Path binary, String namespace, Duration oneWayDelay, DelayLineCpus cpus,
                                Path statsFile) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, binary.toString()));
        command.addAll(List.of("--tun", AddressPlan.TUN_INTERFACE,
                "--delay-us", Long.toString(oneWayDelay.toNanos() / 1_000),
                "--slots", Integer.toString(ringSlots(oneWayDelay)),
                "--priority", Integer.toString(PRIORITY)));
        cpus.delayLineCpu().ifPresent(cpu -> command.addAll(List.of("--cpu", Integer.toString(cpu))));
        command.addAll(List.of("--stats-file", statsFile.toString()));
        return command;
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
