package io.jetstream.kafka.systemtest;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Prometheus' own binaries, {@code promtool} and {@code prometheus} (Debian's {@code prometheus}
 * package, which {@code .ci/run} installs), for tests that check the shipped alert rules with the
 * real rule engine.
 *
 * <p>Where a binary is missing: in CI ({@code CI=true}) the test fails, saying what to install;
 * elsewhere (a newcomer's {@code mvn -B verify}) it is skipped with a loud {@code *** NOT CHECKED}
 * line on the console naming what was not checked and how to get it.
 */
public final class PrometheusBinaries {

    private static final String INSTALL = "apt-get install --no-install-recommends prometheus";

    private PrometheusBinaries() {
    }

    /** {@code promtool} on the PATH; skips (or fails in CI) the calling test without it. */
    public static Path promtool(String whatIsChecked) {
        return require("promtool", whatIsChecked);
    }

    /** The {@code prometheus} server on the PATH; skips (or fails in CI) the calling test without it. */
    public static Path prometheus(String whatIsChecked) {
        return require("prometheus", whatIsChecked);
    }

    private static Path require(String program, String whatIsChecked) {
        Path found = which(program);
        if (found != null) {
            return found;
        }
        String message = program + " is not installed (" + INSTALL + ")";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(message + "; .ci/run installs it");
        }
        System.out.println("*** NOT CHECKED: " + whatIsChecked + ": " + message + " (bash .ci/run installs it) ***");
        Assumptions.abort("skipped: " + message);
        throw new AssertionError("unreachable");
    }

    private static Path which(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The exit code and the merged output of a finished command. */
    public record Result(int exit, String output) {
    }

    /** Runs {@code command} in {@code dir} to its end (at most 60 s), output and errors merged. */
    public static Result run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(command + " did not finish in 60 s");
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
