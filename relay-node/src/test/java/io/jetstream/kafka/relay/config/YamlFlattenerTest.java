package io.jetstream.kafka.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;

import org.junit.jupiter.api.Test;

class YamlFlattenerTest {

    @Test
    void nestedMapsBecomeDottedKeysInDocumentOrder() {
        Map<String, String> flat = YamlFlattener.flatten("""
                relay:
                  id: a1
                listener:
                  host: 127.0.0.1
                  port: 7070
                tls.enabled: false
                destinations:
                  site-b:
                    routes:
                      direct:
                        price.per.gb: 0.02
                """, "test");

        assertThat(flat).containsExactly(
                Map.entry("relay.id", "a1"),
                Map.entry("listener.host", "127.0.0.1"),
                Map.entry("listener.port", "7070"),
                Map.entry("tls.enabled", "false"),
                Map.entry("destinations.site-b.routes.direct.price.per.gb", "0.02"));
    }

    @Test
    void listsBecomeCommaSeparatedStrings() {
        Map<String, String> flat = YamlFlattener.flatten("""
                a: [x:1, y:2]
                b: []
                c:
                  - one
                """, "test");

        assertThat(flat).containsExactly(Map.entry("a", "x:1,y:2"), Map.entry("b", ""), Map.entry("c", "one"));
    }

    @Test
    void nullAndEmptyMapsBecomeEmptyStrings() {
        assertThat(YamlFlattener.flatten("streams:\n  demo:\n  other: {}\n", "test"))
                .containsExactly(Map.entry("streams.demo", ""), Map.entry("streams.other", ""));
    }

    @Test
    void sameKeyNestedAndDottedIsADuplicate() {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
                () -> YamlFlattener.flatten("listener:\n  port: 1\nlistener.port: 2\n", "f.yaml"));

        assertThat(e.problems()).extracting(ConfigProblem::message).containsExactly(
                "Duplicate configuration key listener.port (written twice, e.g. both nested and dotted)");
    }

    @Test
    void listOfMapsHasNoFlatSpelling() {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
                () -> YamlFlattener.flatten("hops:\n  - host: a\n", "f.yaml"));

        assertThat(e.problems()).extracting(ConfigProblem::message).containsExactly(
                "Invalid value for configuration hops: list elements must be plain values, not maps or lists");
    }

    @Test
    void syntaxErrorsCarryTheLine() {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
                () -> YamlFlattener.flatten("a: 1\nb: [unclosed\n", "f.yaml"));

        assertThat(e.getMessage()).startsWith("f.yaml: not valid YAML: ").contains("line ");
    }

    @Test
    void duplicateYamlKeysAreRejected() {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
                () -> YamlFlattener.flatten("a: 1\na: 2\n", "f.yaml"));

        assertThat(e.getMessage()).startsWith("f.yaml: not valid YAML: Duplicate field 'a'");
    }

    @Test
    void aScalarDocumentIsNotAConfiguration() {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
                () -> YamlFlattener.flatten("just text", "f.yaml"));

        assertThat(e.problems()).extracting(ConfigProblem::message)
                .containsExactly("the document must be a map of keys to values, not a STRING");
    }
}
