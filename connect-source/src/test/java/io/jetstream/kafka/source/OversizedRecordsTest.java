package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.source.sender.RelayChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class OversizedRecordsTest {

    private static final long LIMIT = 1_000;

    private static SinkRecord record(long offset) {
        return new SinkRecord("orders", 3, Schema.BYTES_SCHEMA, new byte[1], Schema.BYTES_SCHEMA, new byte[1],
                offset, 0L, TimestampType.CREATE_TIME);
    }

    /** A reporter that keeps what it is given, as a tolerant worker with a dead letter queue would. */
    private static ErrantRecordReporter collecting(List<Throwable> errors) {
        return (record, error) -> {
            errors.add(error);
            return CompletableFuture.completedFuture(null);
        };
    }

    @Test
    void aRecordWithinTheLimitPassesUnreported() {
        List<Throwable> reported = new ArrayList<>();
        OversizedRecords oversized = new OversizedRecords(collecting(reported), false, () -> LIMIT);
        assertThat(oversized.fits(record(5), LIMIT)).isTrue();
        assertThat(reported).isEmpty();
        assertThat(oversized.skipped()).isZero();
    }

    @Test
    void aLargerRecordIsReportedWithItsCoordinatesAndSkipped() {
        List<Throwable> errors = new ArrayList<>();
        OversizedRecords oversized = new OversizedRecords(collecting(errors), false, () -> LIMIT);
        assertThat(oversized.fits(record(42), LIMIT + 1)).isFalse();
        assertThat(oversized.skipped()).isEqualTo(1);
        assertThat(errors).singleElement().isInstanceOf(DataException.class)
                .extracting(Throwable::getMessage).asString()
                .contains("orders-3@42", "1001 bytes", "the 1000 one batch frame", "frame.max.bytes");
    }

    @Test
    void withoutAReporterTheTaskFailsNamingTheRecordAndTheWayOut() {
        OversizedRecords oversized = new OversizedRecords(null, false, () -> LIMIT);
        assertThatThrownBy(() -> oversized.fits(record(7), 5_000)).isInstanceOf(ConnectException.class)
                .hasMessageContaining("orders-3@7").hasMessageContaining("errors.tolerance=all")
                .hasMessageContaining("Raise frame.max.bytes");
    }

    @Test
    void withoutAReporterButWithToleranceAllTheRecordIsSkippedAndCounted() {
        OversizedRecords oversized = new OversizedRecords(null, true, () -> LIMIT);
        assertThat(oversized.fits(record(8), 5_000)).isFalse();
        assertThat(oversized.skipped()).isEqualTo(1);
    }

    @Test
    void theReportersOwnFailureUnderZeroToleranceFailsThePut() {
        ErrantRecordReporter intolerant = (record, error) -> {
            throw new ConnectException("Tolerance exceeded in error handler", error);
        };
        OversizedRecords oversized = new OversizedRecords(intolerant, false, () -> LIMIT);
        assertThatThrownBy(() -> oversized.fits(record(9), 2_000)).isInstanceOf(ConnectException.class)
                .hasRootCauseMessage(rootMessage());
    }

    private static String rootMessage() {
        return "Record orders-3@9 carries 2000 bytes of key, value and headers, more than the 1000 one batch frame "
                + "to the relays can hold (their frame.max.bytes less " + RelayChoice.RECORD_ENCODING_ALLOWANCE
                + " bytes for framing): it cannot be replicated. Raise frame.max.bytes on every relay of the path, "
                + "or set errors.tolerance=all (and errors.deadletterqueue.topic.name) on this connector to skip "
                + "such records";
    }

    @Test
    void theLimitIsReadForEveryRecord() {
        long[] limit = {LIMIT};
        OversizedRecords oversized = new OversizedRecords((record, error) -> CompletableFuture.completedFuture(null),
                false, () -> limit[0]);
        assertThat(oversized.fits(record(1), 1_500)).isFalse();
        limit[0] = 2_000; // a relay announced a larger frame limit
        assertThat(oversized.fits(record(2), 1_500)).isTrue();
    }
}
