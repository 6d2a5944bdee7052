package io.jetstream.kafka.transport;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one reading of {@link TlsFiles} gave, checked: the trusted CAs (empty: the JVM's default),
 * this side's certificate chain, leaf first, and the private key of that leaf (both absent for a
 * client without a certificate). Immutable; a new instance per successful reading.
 */
public record TlsMaterial(List<X509Certificate> trust, List<X509Certificate> chain, Optional<PrivateKey> key) {

    public TlsMaterial {
        trust = List.copyOf(trust);
        chain = List.copyOf(chain);
        Objects.requireNonNull(key, "key");
        if (chain.isEmpty() != key.isEmpty()) {
            throw new IllegalArgumentException("a certificate chain and its key go together");
        }
    }

    /** This side's certificate, the first of the chain. */
    public Optional<X509Certificate> leaf() {
        return chain.isEmpty() ? Optional.empty() : Optional.of(chain.get(0));
    }

    /** Serial number (hex), subject and end of validity of the leaf, for logs; or "no certificate". */
    public String describeLeaf() {
        return leaf().map(c -> "certificate serial " + c.getSerialNumber().toString(16) + " subject "
                        + c.getSubjectX500Principal().getName() + " valid until " + c.getNotAfter().toInstant())
                .orElse("no certificate");
    }

    @Override
    public String toString() {
        return describeLeaf() + ", " + (trust.isEmpty() ? "the JVM's default CAs" : trust.size() + " trusted CA(s)");
    }
}
