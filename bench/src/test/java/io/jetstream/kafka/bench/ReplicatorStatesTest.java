package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a failed task's trace is shortened for a failed variant's message. */
class ReplicatorStatesTest {

    @Test
    void aTraceIsShortenedToItsFirstLineAndItsDeepestCause() {
        String trace = "org.apache.kafka.connect.errors.ConnectException: Failed to flush offsets and/or records for task t-0\n"
                + "\tat org.apache.kafka.connect.runtime.ExactlyOnceWorkerSourceTask.commitTransaction(X.java:331)\n"
                + "Caused by: java.lang.IllegalStateException: outer\n"
                + "\tat a.b.C.d(C.java:1)\n"
                + "Caused by: org.apache.kafka.connect.errors.ConnectException: OffsetStorageWriter is already flushing\n"
                + "\tat org.apache.kafka.connect.storage.OffsetStorageWriter.beginFlush(OffsetStorageWriter.java:120)\n";

        assertThat(Replicator.cause(trace)).isEqualTo(
                "org.apache.kafka.connect.errors.ConnectException: Failed to flush offsets and/or records for task t-0"
                        + " ... Caused by: org.apache.kafka.connect.errors.ConnectException: OffsetStorageWriter is already flushing");
    }

    @Test
    void aTraceWithoutACauseIsItsFirstLine() {
        assertThat(Replicator.cause("java.lang.RuntimeException: boom\r\n\tat a.b.C.d(C.java:1)"))
                .isEqualTo("java.lang.RuntimeException: boom");
    }
}
