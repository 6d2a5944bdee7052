package io.jetstream.kafka.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.interfaces.DSAKey;
import java.security.interfaces.ECKey;
import java.security.interfaces.EdECKey;
import java.security.interfaces.RSAKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.jetstream.kafka.core.model.Clock;
import io.netty.handler.ssl.SslContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS material of {@link TlsFiles}, read at start and read again when the files change, so that
 * a renewed certificate (cert-manager, an ACME client, an operator's copy) is used without a
 * restart.
 *
 * <p>How a change is taken: {@link #material()} looks at the files at most once per check interval
 * (a relay also calls {@link #refresh()} on a timer); when their bytes differ from the ones in use,
 * it parses them, checks that the key belongs to the leaf certificate, and only then swaps. Files
 * that are half-written, unparsable, or a certificate paired with another certificate's key (one file
 * replaced before the other) are not taken: the material in use stays, a WARN names the file and
 * the error (once per content), the {@link Listener} is told, and the next check reads them again.
 * Connections keep the session they have: only new handshakes use the new material.
 *
 * <p>Thread-safe: {@link #material()} is called from event-loop threads on each new connection;
 * its fast path is a volatile read and a clock reading, a check holds a lock while it reads the
 * (small) files.
 */
public final class ReloadingTlsFiles {

    /** Told of what happens to the files; the relay turns it into metrics. Called under the check's lock. */
    public interface Listener {

        Listener NONE = new Listener() {
        };

        /** New material is in use (not called for the first reading). */
        default void reloaded(TlsMaterial material) {
        }

        /** The files changed but {@code file} could not be used; the material in use stays. */
        default void reloadFailed(Path file, Exception cause) {
        }
    }

    /** Default time between two looks at the files: short next to any certificate's lifetime. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(ReloadingTlsFiles.class);
    private static final byte[] KEY_PROBE = "jetstream tls key check".getBytes(StandardCharsets.US_ASCII);

    private final TlsFiles files;
    private final long intervalNanos;
    private final Clock clock;
    private final Listener listener;
    private final Object lock = new Object();
    private volatile TlsMaterial current;
    private volatile long nextCheckNanos;
    // Guarded by lock.
    private byte[] digestInUse;
    private byte[] digestRefused;

    private ReloadingTlsFiles(TlsFiles files, Duration checkInterval, Clock clock, Listener listener,
                              TlsMaterial material, byte[] digest) {
        this.files = files;
        this.intervalNanos = checkInterval.toNanos();
        this.clock = clock;
        this.listener = listener;
        this.current = material;
        this.digestInUse = digest;
        this.nextCheckNanos = clock.nanoTime() + intervalNanos;
    }

    /**
     * Reads the files now.
     *
     * @param checkInterval most frequent look at the files; zero looks at every {@link #material()}
     * @throws IllegalArgumentException if the files cannot be used (the message names the file and the error)
     */
    public static ReloadingTlsFiles load(TlsFiles files, Duration checkInterval, Clock clock, Listener listener) {
        Objects.requireNonNull(files, "files");
        if (checkInterval.isNegative()) {
            throw new IllegalArgumentException("check interval " + checkInterval + " is negative");
        }
        try {
            Contents contents = Contents.read(files);
            return new ReloadingTlsFiles(files, checkInterval, Objects.requireNonNull(clock, "clock"),
                    Objects.requireNonNull(listener, "listener"), contents.parse(files), contents.digest());
        } catch (TlsFileException e) {
            throw new IllegalArgumentException("cannot use the TLS files (" + files + "): " + e.getMessage()
                    + " (keys must be PKCS#8 PEM: BEGIN PRIVATE KEY)", e.getCause());
        }
    }

    /** The material to use for a new connection: first looks at the files if the check interval has passed. */
    public TlsMaterial material() {
        if (clock.nanoTime() - nextCheckNanos >= 0) {
            refresh();
        }
        return current;
    }

    /** The material in use, without looking at the files. */
    public TlsMaterial current() {
        return current;
    }

    public TlsFiles files() {
        return files;
    }

    /**
     * Looks at the files now and takes them if they changed and can be used.
     *
     * @return whether new material is in use
     */
    public boolean refresh() {
        synchronized (lock) {
            nextCheckNanos = clock.nanoTime() + intervalNanos;
            Contents contents;
            try {
                contents = Contents.read(files);
            } catch (TlsFileException e) {
                // Unreadable (a file being replaced): no content to remember, read again next time.
                refused(null, e);
                return false;
            }
            if (Arrays.equals(contents.digest(), digestInUse) || Arrays.equals(contents.digest(), digestRefused)) {
                return false;
            }
            TlsMaterial material;
            try {
                material = contents.parse(files);
            } catch (TlsFileException e) {
                refused(contents.digest(), e);
                return false;
            }
            TlsMaterial previous = current;
            current = material;
            digestInUse = contents.digest();
            digestRefused = null;
            log.info("TLS files changed ({}): new connections now use {} (was {}); connections already open keep"
                    + " their session", files, material, previous.describeLeaf());
            listener.reloaded(material);
            return true;
        }
    }

    private void refused(byte[] digest, TlsFileException e) {
        if (digest != null) {
            digestRefused = digest;
        }
        log.warn("TLS file {} changed but cannot be used: {}; still using {}; the files are read again when they"
                        + " change (checked every {} ms at most)", e.file(), e.reason(), current.describeLeaf(),
                Duration.ofNanos(intervalNanos).toMillis());
        listener.reloadFailed(e.file(), e);
    }

    /** One reading of the files: their bytes and a digest of all of them. */
    private record Contents(byte[] ca, byte[] cert, byte[] key, byte[] digest) {

        static Contents read(TlsFiles files) throws TlsFileException {
            byte[] ca = bytes(files.caFile());
            byte[] cert = bytes(files.certFile());
            byte[] key = bytes(files.keyFile());
            MessageDigest sha256;
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JDK has no SHA-256", e);
            }
            for (byte[] part : new byte[][] {ca, cert, key}) {
                int length = part == null ? -1 : part.length;
                sha256.update(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8),
                        (byte) length});
                if (part != null) {
                    sha256.update(part);
                }
            }
            return new Contents(ca, cert, key, sha256.digest());
        }

        private static byte[] bytes(Optional<Path> file) throws TlsFileException {
            if (file.isEmpty()) {
                return null;
            }
            try {
                return Files.readAllBytes(file.get());
            } catch (IOException e) {
                throw new TlsFileException(file.get(), "cannot read it: " + e, e);
            }
        }

        TlsMaterial parse(TlsFiles files) throws TlsFileException {
            List<X509Certificate> trust = ca == null ? List.of() : certificates(files.caFile().get(), ca);
            if (cert == null) {
                return new TlsMaterial(trust, List.of(), Optional.empty());
            }
            List<X509Certificate> chain = certificates(files.certFile().get(), cert);
            Path keyFile = files.keyFile().get();
            PrivateKey privateKey;
            try {
                privateKey = Pem.privateKey(key, files.keyPassword().orElse(null));
            } catch (Exception e) {
                throw new TlsFileException(keyFile, "not a usable private key: " + e.getMessage(), e);
            }
            if (privateKey == null) {
                throw new TlsFileException(keyFile, "no private key in it", null);
            }
            checkKeyMatches(chain.get(0), privateKey, keyFile, files.certFile().get());
            return new TlsMaterial(trust, chain, Optional.of(privateKey));
        }

        private static List<X509Certificate> certificates(Path file, byte[] pem) throws TlsFileException {
            try {
                X509Certificate[] certificates = Pem.certificates(pem);
                if (certificates == null || certificates.length == 0) {
                    throw new TlsFileException(file, "no certificate in it", null);
                }
                return List.of(certificates);
            } catch (CertificateException | RuntimeException e) {
                throw new TlsFileException(file, "not a usable PEM certificate file: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Refuses a key that does not belong to the certificate: a signature made with the key must verify
     * with the certificate's public key. Catches a certificate file renewed before its key file.
     */
    static void checkKeyMatches(X509Certificate leaf, PrivateKey parsed, Path keyFile, Path certFile)
            throws TlsFileException {
        byte[] encoded = parsed.getEncoded();
        if (encoded == null) {
            return; // a key that does not show itself (a hardware token): the handshake will tell
        }
        boolean matches;
        try {
            // The JDK's own key of the certificate's type: the parser may have used another provider
            // (BouncyCastle, when present), whose keys the JDK's signatures do not take.
            PrivateKey key = KeyFactory.getInstance(leaf.getPublicKey().getAlgorithm())
                    .generatePrivate(new PKCS8EncodedKeySpec(encoded));
            String algorithm = signatureAlgorithm(key);
            if (algorithm == null) {
                return; // RSASSA-PSS and rarer: the handshake will tell
            }
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(KEY_PROBE);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(KEY_PROBE);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            matches = false; // not even a key of the certificate's type
        }
        if (!matches) {
            throw new TlsFileException(keyFile, "the key does not belong to the certificate of " + certFile
                    + " (serial " + leaf.getSerialNumber().toString(16) + ")", null);
        }
    }

    private static String signatureAlgorithm(PrivateKey key) {
        if (key instanceof ECKey) {
            return "SHA256withECDSA";
        } else if (key instanceof RSAKey && "RSA".equals(key.getAlgorithm())) {
            return "SHA256withRSA";
        } else if (key instanceof EdECKey) {
            return "EdDSA";
        } else if (key instanceof DSAKey) {
            return "SHA256withDSA";
        }
        return null;
    }

    /** A file of the set that cannot be used, and why. */
    static final class TlsFileException extends Exception {

        private final Path file;
        private final String reason;

        TlsFileException(Path file, String reason, Throwable cause) {
            super(file + ": " + reason, cause);
            this.file = file;
            this.reason = reason;
        }

        Path file() {
            return file;
        }

        /** What is wrong with the file, without its name. */
        String reason() {
            return reason;
        }
    }

    /**
     * Netty's PEM parsing (the same the context builders use on files, so the same formats are
     * accepted), reached through SslContext's protected static helpers. Never instantiated.
     */
    private abstract static class Pem extends SslContext {

        static X509Certificate[] certificates(byte[] pem) throws CertificateException {
            return toX509Certificates(new ByteArrayInputStream(pem));
        }

        static PrivateKey privateKey(byte[] pem, String password) throws GeneralSecurityException, IOException {
            return toPrivateKey(new ByteArrayInputStream(pem), password);
        }
    }
}
