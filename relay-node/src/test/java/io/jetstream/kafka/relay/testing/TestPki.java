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
        this(dir, "JetStream Test CA");
    }

    /** A PKI of its own CA, named {@code caName}, writing into {@code dir} (created if needed). */
    public TestPki(Path dir, String caName) throws Exception {
        this.dir = Files.createDirectories(dir);
        this.ca = base().subject("CN=" + caName).setIsCertificateAuthority(true)
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

    /** The CA certificate as PEM text (to build trust bundles of several CAs). */
    public String caPem() {
        return ca.getCertificatePEM();
    }

    /** A certificate for a relay reachable as {@code dnsName}, valid for both server and client use. */
    public PemPair relay(String name, String dnsName) throws Exception {
        X509Bundle leaf = leaf(name, dnsName);
        return new PemPair(write(name + "-cert.pem", leaf.getCertificatePathPEM()),
                write(name + "-key.pem", leaf.getPrivateKeyPEM()));
    }

    /** The same kind of certificate as {@link #relay}, not written: a new serial at each call. */
    public X509Bundle leaf(String name, String dnsName) throws Exception {
        return base().subject("CN=" + name).addSanDnsName(dnsName)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth()
                .buildIssuedBy(ca);
    }

    /**
     * A client certificate with subject {@code CN=commonName} and the given alternative names
     * ({@code dns:...}, {@code uri:...}, {@code ip:...}), for tests of certificate identities.
     */
    public PemPair peer(String commonName, String... alternativeNames) throws Exception {
        X509Bundle leaf = peerBundle(commonName, alternativeNames);
        String file = commonName.replaceAll("[^A-Za-z0-9-]", "_");
        return new PemPair(write(file + "-cert.pem", leaf.getCertificatePathPEM()),
                write(file + "-key.pem", leaf.getPrivateKeyPEM()));
    }

    /** The same certificate as {@link #peer}, as an object. */
    public X509Bundle peerBundle(String commonName, String... alternativeNames) throws Exception {
        CertificateBuilder builder = base().subject("CN=" + commonName)
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature)
                .addExtendedKeyUsageServerAuth().addExtendedKeyUsageClientAuth();
        for (String name : alternativeNames) {
            String value = name.substring(name.indexOf(':') + 1);
            if (name.startsWith("dns:")) {
                builder.addSanDnsName(value);
            } else if (name.startsWith("uri:")) {
                builder.addSanUriName(value);
            } else if (name.startsWith("ip:")) {
                builder.addSanIpAddress(value);
            } else {
                throw new IllegalArgumentException("alternative name " + name + ": use dns:, uri: or ip:");
            }
        }
        return builder.buildIssuedBy(ca);
    }

    private Path write(String file, String pem) throws Exception {
        return Files.writeString(dir.resolve(file), pem);
    }
}
