package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandRunnerTest {

    private final CommandRunner runner = new CommandRunner();

    @Test
    void returnsStandardOutput() throws Exception {
        assertThat(runner.run(List.of("sh", "-c", "echo hello; echo noise >&2"))).isEqualTo("hello\n");
    }

    @Test
    void aFailingCommandNamesItselfAndItsStandardError() {
        assertThatThrownBy(() -> runner.run(List.of("sh", "-c", "echo 'RTNETLINK answers: File exists' >&2; exit 2")))
                .isInstanceOf(IOException.class)
                .hasMessage("Command failed with exit code 2: sh -c 'echo '\\''RTNETLINK answers: File exists'\\'' >&2;"
                        + " exit 2': RTNETLINK answers: File exists");
    }

    @Test
    void aCommandThatOutlivesItsTimeoutIsKilled() {
        long started = System.nanoTime();
        assertThatThrownBy(() -> runner.run(List.of("sleep", "30"), Duration.ofMillis(200)))
                .isInstanceOf(IOException.class)
                .hasMessage("Command timed out after 200 ms: sleep 30");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void executeReportsFailureWithoutThrowing() throws Exception {
        CommandRunner.Result result = runner.execute(List.of("sh", "-c", "exit 3"), Duration.ofSeconds(10));

        assertThat(result.succeeded()).isFalse();
        assertThat(result.exitCode()).isEqualTo(3);
    }

    @Test
    void rendersPlainWordsBareAndQuotesTheRest() {
        assertThat(CommandRunner.render(List.of("ip", "-n", "js-a1", "addr", "add", "198.18.1.1/24", "", "a b")))
                .isEqualTo("ip -n js-a1 addr add 198.18.1.1/24 '' 'a b'");
    }
}
