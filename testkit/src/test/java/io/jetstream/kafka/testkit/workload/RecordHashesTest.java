package io.jetstream.kafka.testkit.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

class RecordHashesTest {

    @Test
    void nullAndEmptyDiffer() {
        assertThat(RecordHashes.bytes(null)).isNotEqualTo(RecordHashes.bytes(new byte[0]));
        assertThat(RecordHashes.bytes(new byte[] {0})).isNotEqualTo(RecordHashes.bytes(new byte[] {0, 0}));
        assertThat(RecordHashes.bytes(bytes("abc"))).isEqualTo(RecordHashes.bytes(bytes("abc")));
    }

    @Test
    void headersHashCoversKeysValuesNullsAndOrder() {
        Header a = header("a", "1");
        Header b = header("b", "2");
        Header nullB = new RecordHeader("b", (byte[]) null);
        Header emptyB = new RecordHeader("b", new byte[0]);

        long ab = RecordHashes.headers(List.of(a, b), Set.of());
        assertThat(RecordHashes.headers(List.of(b, a), Set.of())).isNotEqualTo(ab);
        assertThat(RecordHashes.headers(List.of(a, nullB), Set.of()))
                .isNotEqualTo(RecordHashes.headers(List.of(a, emptyB), Set.of()));
        assertThat(RecordHashes.headers(List.of(header("ab", ""), header("", "")), Set.of()))
                .isNotEqualTo(RecordHashes.headers(List.of(header("a", "b"), header("", "")), Set.of()));
    }

    @Test
    void ignoredHeadersAreLeftOut() {
        Header a = header("a", "1");
        Header added = header("replicator.hop", "relay-2");

        assertThat(RecordHashes.headers(List.of(a, added), Set.of("replicator.hop")))
                .isEqualTo(RecordHashes.headers(List.of(a), Set.of()));
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, bytes(value));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
