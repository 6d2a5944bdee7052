package io.jetstream.kafka.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.cert.X509Certificate;

import io.jetstream.kafka.relay.testing.TestPki;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerIdentityTest {

    @TempDir
    Path dir;

    private X509Certificate source;
    private X509Certificate bare;

    @BeforeEach
    void certificates() throws Exception {
        TestPki pki = new TestPki(dir);
        source = pki.peerBundle("source-a", "dns:Source-A.Example.com", "uri:spiffe://example.com/jetstream/source",
                "ip:10.0.0.7", "ip:2001:db8::7").getCertificate();
        bare = pki.peerBundle("other").getCertificate();
    }

    @Test
    void eachKindMatchesItsPartOfTheCertificateOnly() {
        assertThat(PeerIdentity.parse("cn:source-a").matches(source)).isTrue();
        assertThat(PeerIdentity.parse("cn:Source-A").matches(source)).as("common names compare exactly").isFalse();
        assertThat(PeerIdentity.parse("dns:source-a.example.COM").matches(source)).as("host names ignore case")
                .isTrue();
        assertThat(PeerIdentity.parse("uri:spiffe://example.com/jetstream/source").matches(source)).isTrue();
        assertThat(PeerIdentity.parse("uri:spiffe://example.com/jetstream/sink").matches(source)).isFalse();
        assertThat(PeerIdentity.parse("ip:10.0.0.7").matches(source)).isTrue();
        assertThat(PeerIdentity.parse("ip:2001:db8:0:0:0:0:0:7").matches(source)).as("IPv6 in any spelling")
                .isTrue();
        assertThat(PeerIdentity.parse("ip:10.0.0.8").matches(source)).isFalse();
        // a name in the wrong part of the certificate does not count
        assertThat(PeerIdentity.parse("dns:source-a").matches(source)).isFalse();
        assertThat(PeerIdentity.parse("cn:source-a.example.com").matches(source)).isFalse();
        assertThat(PeerIdentity.parse("dns:source-a.example.com").matches(bare)).isFalse();
        assertThat(PeerIdentity.parse("cn:other").matches(bare)).isTrue();
    }

    @Test
    void badEntriesNameWhatIsWrong() {
        assertThatThrownBy(() -> PeerIdentity.parse("CN=source-a")).hasMessageContaining("must be one of cn:");
        assertThatThrownBy(() -> PeerIdentity.parse("dns:")).hasMessageContaining("dns: needs a host name");
        assertThatThrownBy(() -> PeerIdentity.parse("uri:a b")).hasMessageContaining("uri: needs a URI");
        assertThatThrownBy(() -> PeerIdentity.parse("ip:relay.example.com")).hasMessageContaining("ip: needs");
        assertThatThrownBy(() -> PeerIdentity.parse("cn:")).hasMessageContaining("cn: needs");
    }

    @Test
    void refusalsDescribeTheCertificateByItsNames() {
        assertThat(PeerIdentity.describe(source)).contains("CN=source-a", "dns:Source-A.Example.com",
                "uri:spiffe://example.com/jetstream/source", "ip:10.0.0.7");
    }

    @Test
    void streamsBindOnlyTheRolesGivenIdentities() {
        StreamSpec stream = new StreamSpec("demo", new org.apache.kafka.common.config.types.Password("t"),
                java.util.Map.of(), java.util.Map.of(io.jetstream.kafka.core.protocol.PeerRole.SUBSCRIBER,
                        java.util.List.of(PeerIdentity.parse("cn:sink-b"))));
        var subscriber = io.jetstream.kafka.core.protocol.PeerRole.SUBSCRIBER;
        var sender = io.jetstream.kafka.core.protocol.PeerRole.SENDER;
        assertThat(stream.bindsCertificates(subscriber)).isTrue();
        assertThat(stream.certificateAllowed(subscriber, source)).isFalse();
        assertThat(stream.certificateAllowed(subscriber, null)).isFalse();
        assertThat(stream.bindsCertificates(sender)).isFalse();
        assertThat(stream.certificateAllowed(sender, null)).isTrue();
    }
}
