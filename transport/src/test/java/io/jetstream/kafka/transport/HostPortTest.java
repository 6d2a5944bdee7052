package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostPortTest {

    @Test
    void parsesHostNamesAndBracketedIpv6Literals() {
        assertThat(HostPort.parse(" relay-a1:7070 ")).isEqualTo(new HostPort("relay-a1", 7070));
        assertThat(HostPort.parse("[::1]:7071")).isEqualTo(new HostPort("::1", 7071));
        assertThat(HostPort.parse("[::1]:7071")).hasToString("[::1]:7071");
        assertThat(HostPort.parse("10.0.0.7:1").unresolved().isUnresolved()).isTrue();
    }

    @Test
    void refusesWhatIsNotHostColonPortNamingTheText() {
        assertThatThrownBy(() -> HostPort.parse("relay-b1")).hasMessage("'relay-b1' is not of the form host:port");
        assertThatThrownBy(() -> HostPort.parse("::1:7070")).hasMessageContaining("brackets");
        assertThatThrownBy(() -> HostPort.parse("a b:7070")).hasMessageContaining("blank host");
        assertThatThrownBy(() -> HostPort.parse("relay:http")).hasMessageContaining("not a number");
        assertThatThrownBy(() -> HostPort.parse("relay:70000")).hasMessageContaining("outside 1-65535");
        assertThatThrownBy(() -> HostPort.parse("relay:0")).hasMessageContaining("outside 1-65535");
    }
}
