package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class TransactionProbeTest {

    @Test
    void percentilesAreTheRecordsAtTheirRank() {
        List<Long> hundred = LongStream.rangeClosed(1, 100).boxed().toList();
        assertThat(TransactionProbe.percentile(hundred, 0.50)).isEqualTo(51);
        assertThat(TransactionProbe.percentile(hundred, 0.99)).isEqualTo(100);
        assertThat(TransactionProbe.percentile(List.of(30L, 10L, 20L), 1.0)).as("unsorted input").isEqualTo(30);
        assertThat(TransactionProbe.percentile(List.of(), 0.99)).isZero();
    }

    @Test
    void anUnknownStorageFailsBeforeABrokerStarts() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new TransactionProbe()).setErr(new PrintWriter(err))
                .setExecutionExceptionHandler((e, commandLine, parsed) -> {
                    commandLine.getErr().println(e.getMessage());
                    return 1;
                })
                .execute("--broker-storage", "ssd", "--broker-prop", "log.index.interval.bytes=16777216");
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("--broker-storage must be disk or memory, was 'ssd'");
    }
}
