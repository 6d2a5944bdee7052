package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WorkerTransactionsCheckTest {

    private final WorkerTransactionsCheck check = new WorkerTransactionsCheck();

    @Test
    void commitOnTheTaskThreadIsWhatATransactionalWorkerDoes() {
        assertThat(check.committed(true, "task-thread-0")).isNull();
        assertThat(check.committed(true, "task-thread-0")).isNull();
        assertThat(check.evidence()).isNull();
    }

    @Test
    void commitFromAnotherThreadProvesAWorkerWithoutTransactions() {
        WorkerTransactionsCheck.Evidence evidence = check.committed(false, "SourceTaskOffsetCommitter-1");

        assertThat(evidence).isNotNull().isSameAs(check.evidence());
        assertThat(evidence.message())
                .contains("SourceTaskOffsetCommitter-1")
                .contains("exactly.once.support=required")
                .contains("exactly.once.source.support=enabled")
                .contains("exactly.once.support=requested");
    }

    @Test
    void theFirstEvidenceIsReportedOnceAndKept() {
        WorkerTransactionsCheck.Evidence evidence = check.committed(false, "SourceTaskOffsetCommitter-1");
        assertThat(evidence).isNotNull();

        assertThat(check.committed(false, "SourceTaskOffsetCommitter-1")).isNull();
        assertThat(check.committed(true, "task-thread-0")).isNull();
        assertThat(check.evidence()).isSameAs(evidence);
    }
}
