package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * Fails when docs/relay.md's generated sections differ from what the code declares. To refresh:
 * {@code mvn -B -o -pl relay-node -am test -Dtest=RelayDocsTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Djetstream.docs.update=true}.
 */
class RelayDocsTest {

    private static final Path DOC = Path.of(System.getProperty("jetstream.docs.relay", "../docs/relay.md"));

    @Test
    void committedReferenceIsUpToDate() throws Exception {
        String committed = Files.readString(DOC, StandardCharsets.UTF_8);
        String expected = RelayDocs.update(committed);

        if (Boolean.getBoolean("jetstream.docs.update") && !expected.equals(committed)) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
            committed = expected;
        }

        assertThat(committed)
                .as("%s is stale: rerun this test with -Djetstream.docs.update=true and commit the result", DOC)
                .isEqualTo(expected);
    }

    @Test
    void referenceNamesEveryKeyAndMetric() {
        String document = RelayDocs.update(RelayDocs.begin("config-reference") + RelayDocs.end("config-reference")
                + RelayDocs.begin("metrics-reference") + RelayDocs.end("metrics-reference"));

        assertThat(document).contains("| `listener.port` | int | `7070` |", "| `streams.<id>.token` | password | *required* |",
                "| `destinations.<destination>.routes.<route>.hops` | list | *required* |",
                "| `buffer.max.bytes` | long | `268435456` (256 MiB) |",
                "| `jetstream_relay_peer_rtt_seconds` | gauge | `peer` |", "`data_path_unavailable`");
    }

    @Test
    void refusesADocumentWithoutMarkers() {
        assertThatThrownBy(() -> RelayDocs.update("# no markers")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the document lacks the markers <!-- BEGIN GENERATED: config-reference");
    }
}
