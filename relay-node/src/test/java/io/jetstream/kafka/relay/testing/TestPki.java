package io.jetstream.kafka.relay.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;

/**
 * A throw-away PKI for TLS tests, generated in the test (netty-pkitesting): a CA, and leaf
 * certificates it signs, written as the PEM files the relay configuration points at.
 */
public final class TestPki {

    /** PEM files of one leaf: certificate chain and PKCS#8 key. */
    public record PemPair(Path cert, Path key) {
    }

    private final Path dir;
    private final X509Bundle ca;

    public TestPki(Path dir) throws Exception {
        this.dir = dir;
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

    /** The CA certificate, to put in {@code tls.ca.file}. */
    public Path caFile() throws Exception {
        return write("ca.pem", ca.getCertificatePEM());
    }

    /** A certificate for a relay reachable as {@code dnsName}, valid for both server and client use. */
    public PemPair relay(String name, String dnsName) throws Exception {
        X509Bundle leaf = base().subject("CN=" + name).addSanDnsName(dnsName)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth()
                .buildIssuedBy(ca);
        return new PemPair(write(name + "-cert.pem", leaf.getCertificatePathPEM()),
                write(name + "-key.pem", leaf.getPrivateKeyPEM()));
    }

    private Path write(String file, String pem) throws Exception {
        return Files.writeString(dir.resolve(file), pem);
    }
}
