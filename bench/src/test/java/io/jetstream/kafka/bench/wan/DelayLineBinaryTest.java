package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DelayLineBinaryTest {

    private final CommandRunner runner = new CommandRunner();

    @Test
    void compilesOncePerSourceVersion(@TempDir Path workDir) throws Exception {
        assumeTrue(Preflight.onPath("gcc").isPresent(), "gcc is not installed");

        Path binary = DelayLineBinary.compile(workDir, runner);
        long compiledAt = Files.getLastModifiedTime(binary).toMillis();

        assertThat(binary.getFileName().toString())
                .isEqualTo("delayline-" + DelayLineBinary.sourceHash(DelayLineBinary.source()));
        assertThat(Files.isExecutable(binary)).isTrue();
        assertThat(DelayLineBinary.compile(workDir, runner)).isEqualTo(binary);
        assertThat(Files.getLastModifiedTime(binary).toMillis()).isEqualTo(compiledAt);
    }

    @Test
    void theCompiledDelayLineRejectsBadUsage(@TempDir Path workDir) throws Exception {
        assumeTrue(Preflight.onPath("gcc").isPresent(), "gcc is not installed");
        Path binary = DelayLineBinary.compile(workDir, runner);

        for (List<String> arguments : List.of(List.<String>of(), List.of("--tun", "dl0"),
                List.of("--tun", "dl0", "--delay-us", "25000", "--slots", "1000"))) {
            List<String> command = new java.util.ArrayList<>(List.of(binary.toString()));
            command.addAll(arguments);
            CommandRunner.Result result = runner.execute(command, Duration.ofSeconds(10));
            assertThat(result.exitCode()).as(command.toString()).isEqualTo(2);
            assertThat(result.stderr()).startsWith("usage: delayline");
        }
    }

    @Test
    void theCompiledDelayLineRejectsABadControlFileBeforeTouchingAnyDevice(@TempDir Path workDir) throws Exception {
        assumeTrue(Preflight.onPath("gcc").isPresent(), "gcc is not installed");
        Path binary = DelayLineBinary.compile(workDir, runner);
        Path control = workDir.resolve("delays");

        for (String bad : List.of("198.18.1.1 -5\n", "198.18.1.300 25000\n", "198.18.1.1 10000001\n")) {
            Files.writeString(control, "generation 0\n198.18.1.2 25000\n" + bad);
            CommandRunner.Result result = runner.execute(List.of(binary.toString(), "--tun", "dl0", "--delay-us",
                    "25000", "--control-file", control.toString()), Duration.ofSeconds(10));
            assertThat(result.exitCode()).as(bad).isEqualTo(2);
            assertThat(result.stderr()).as(bad).contains("rejected line: " + bad.strip());
        }
    }

    @Test
    void hashIsSixteenHexDigitsOfTheSource() {
        assertThat(DelayLineBinary.sourceHash("x".getBytes())).isEqualTo("2d711642b726b044");
    }
}
