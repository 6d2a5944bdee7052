package io.jetstream.kafka.systemtest;

import io.jetstream.kafka.testkit.replication.RelayTls;
import io.jetstream.kafka.testkit.site.SaslSslListener;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * A throw-away PKI made at test time (netty-pkitesting): one CA; per site a broker key store and a
 * client trust store (PKCS12, as Kafka operators usually ship them); and a PEM certificate for the
 * relays and connectors (mutual TLS on relay links). Every certificate names 127.0.0.1 and
 * localhost, where the test's brokers and relays listen, so host-name verification stays on.
 */
final class TestPki {

    private final Path dir;
    private final X509Bundle ca;

    TestPki(Path dir) throws Exception {
        this.dir = Files.createDirectories(dir);
        this.ca = base().subject("CN=JetStream Test CA").setIsCertificateAuthority(true)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.keyCertSign, CertificateBuilder.KeyUsage.cRLSign)
                .buildSelfSigned();
    }

    private static CertificateBuilder base() {
        Instant now = Instant.now();
        return new CertificateBuilder().ecp256()
                .notBefore(now.minus(1, ChronoUnit.HOURS))
                .notAfter(now.plus(1, ChronoUnit.DAYS));
    }

    private X509Bundle leaf(String name) throws Exception {
        return base().subject("CN=" + name).addSanIpAddress("127.0.0.1").addSanDnsName("localhost")
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth()
                .buildIssuedBy(ca);
    }

    /** A SASL_SSL listener for the broker of {@code site}: its key store, the CA's trust store and the users. */
    SaslSslListener saslSslListener(String site, String storePassword, Map<String, String> users) throws Exception {
        char[] password = storePassword.toCharArray();
        Path keyStore = store(leaf("broker-" + site).toKeyStore(password), "broker-" + site + ".p12", password);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("jetstream-test-ca", ca.getCertificate());
        Path trustStore = store(trust, "truststore-" + site + ".p12", password);
        return new SaslSslListener(keyStore, trustStore, storePassword, users);
    }

    /** PEM files for mutual TLS on every relay link (one certificate for relays and connectors). */
    RelayTls relayTls() throws Exception {
        X509Bundle relay = leaf("jetstream-relay");
        return new RelayTls(Files.writeString(dir.resolve("ca.pem"), ca.getCertificatePEM()),
                Files.writeString(dir.resolve("relay-cert.pem"), relay.getCertificatePathPEM()),
                Files.writeString(dir.resolve("relay-key.pem"), relay.getPrivateKeyPEM()));
    }

    private Path store(KeyStore store, String file, char[] password) throws Exception {
        Path path = dir.resolve(file);
        try (OutputStream out = Files.newOutputStream(path)) {
            store.store(out, password);
        }
        return path;
    }
}
