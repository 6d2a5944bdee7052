package io.jetstream.kafka.transport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a TLS identity and its trust are kept: PEM files, as the relay and the connectors configure
 * them. {@code caFile}: the CA certificates trusted for peers (empty: the JVM's default CAs);
 * {@code certFile} and {@code keyFile}: this side's certificate chain (leaf first) and its PKCS#8
 * key, both or neither; {@code keyPassword}: the password of an encrypted key.
 */
public record TlsFiles(Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile,
                       Optional<String> keyPassword) {

    /**
     * @throws IllegalArgumentException if only one of cert and key is given
     */
    public TlsFiles {
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        Objects.requireNonNull(keyPassword, "keyPassword");
        if (certFile.isPresent() != keyFile.isPresent()) {
            throw new IllegalArgumentException("a certificate needs both a certificate file and a key file, got "
                    + "cert=" + describe(certFile) + " key=" + describe(keyFile));
        }
    }

    /** Files without a key password. */
    public static TlsFiles of(Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile) {
        return new TlsFiles(caFile, certFile, keyFile, Optional.empty());
    }

    /** The files that are set, in the order ca, cert, key. */
    public List<Path> paths() {
        List<Path> paths = new ArrayList<>(3);
        caFile.ifPresent(paths::add);
        certFile.ifPresent(paths::add);
        keyFile.ifPresent(paths::add);
        return paths;
    }

    /** Names the files, never the password. */
    @Override
    public String toString() {
        return "ca=" + describe(caFile) + " cert=" + describe(certFile) + " key=" + describe(keyFile);
    }

    private static String describe(Optional<Path> file) {
        return file.map(Path::toString).orElse("(none)");
    }
}
