package io.jetstream.kafka.bench.wan;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one short command ({@code ip}, {@code tc}, {@code gcc}) to completion with {@link ProcessBuilder}, both output
 * streams captured. A command that fails, or outlives its timeout (it is then killed), becomes an {@link IOException}
 * that names the command, its exit code and its standard error. Thread-safe; holds no state.
 */
final class CommandRunner {

    private static final Logger log = LoggerFactory.getLogger(CommandRunner.class);
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    private static final File NULL_DEVICE = new File("/dev/null");

    /** What a finished command printed. */
    record Result(List<String> command, int exitCode, String stdout, String stderr) {

        boolean succeeded() {
            return exitCode == 0;
        }
    }

    /** Runs {@code command}; returns its standard output, or throws if it exits non-zero. */
    String run(List<String> command) throws IOException, InterruptedException {
        return run(command, DEFAULT_TIMEOUT);
    }

    String run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Result result = execute(command, timeout);
        if (!result.succeeded()) {
            throw new IOException("Command failed with exit code " + result.exitCode() + ": " + render(command)
                    + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
        }
        return result.stdout();
    }

    /** Runs {@code command} and returns how it ended, whatever the exit code; throws only if it cannot run at all. */
    Result execute(List<String> command, Duration timeout) throws IOException, InterruptedException {
        log.debug("Running {}", render(command));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(NULL_DEVICE))
                .start();
        // Drain both pipes on their own threads: neither can fill up and stall the command, and the timeout holds
        // even if the command never closes its output.
        StreamCollector stdout = new StreamCollector(process.getInputStream(), "wan-command-stdout");
        StreamCollector stderr = new StreamCollector(process.getErrorStream(), "wan-command-stderr");
        stdout.start();
        stderr.start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("Command timed out after " + timeout.toMillis() + " ms: " + render(command));
            }
            stdout.join(timeout.toMillis());
            stderr.join(timeout.toMillis());
            return new Result(List.copyOf(command), process.exitValue(), stdout.text(), stderr.text());
        } catch (InterruptedException | IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** The command as one would type it, arguments with spaces or quotes single-quoted. */
    static String render(List<String> command) {
        return command.stream().map(CommandRunner::quote).collect(Collectors.joining(" "));
    }

    private static String quote(String word) {
        boolean plain = !word.isEmpty()
                && word.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_./=:,+@%".indexOf(c) >= 0);
        return plain ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    /** Reads a stream to its end on a daemon thread. */
    private static final class StreamCollector extends Thread {

        private final InputStream in;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        StreamCollector(InputStream in, String name) {
            super(name);
            this.in = in;
            setDaemon(true);
        }

        @Override
        public void run() {
            try (in) {
                in.transferTo(bytes);
            } catch (IOException e) {
                // The pipe broke because the command was killed: the caller reports that, not this.
                log.trace("Stopped reading a command's output", e);
            }
        }

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
