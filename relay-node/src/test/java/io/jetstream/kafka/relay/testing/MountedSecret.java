package io.jetstream.kafka.relay.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

import io.netty.pkitesting.X509Bundle;

/**
 * A directory laid out as the kubelet mounts a Kubernetes Secret (the way cert-manager's renewals
 * reach a pod): each file ({@code ca.crt}, {@code tls.crt}, {@code tls.key}) is a symbolic link
 * through {@code ..data}, which points at a version directory and is swapped atomically by a rename
 * when the Secret changes. A reader never sees one file of a version with another of the previous
 * one, unless it opens them on both sides of a swap.
 */
public final class MountedSecret {

    public static final String CA = "ca.crt";
    public static final String CERT = "tls.crt";
    public static final String KEY = "tls.key";

    private final Path dir;
    private int version;

    /** An empty mount in {@code dir}; {@link #publish} gives it content. */
    public MountedSecret(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
        for (String name : List.of(CA, CERT, KEY)) {
            Files.createSymbolicLink(dir.resolve(name), Path.of("..data", name));
        }
    }

    public Path file(String name) {
        return dir.resolve(name);
    }

    /** Publishes a new version: {@code trustPem} as ca.crt, the leaf's chain and key as tls.crt and tls.key. */
    public void publish(String trustPem, X509Bundle leaf) throws IOException {
        publish(Map.of(CA, trustPem, CERT, leaf.getCertificatePathPEM(), KEY, leaf.getPrivateKeyPEM()));
    }

    /** Publishes a new version with exactly these contents, swapped in at once. */
    public synchronized void publish(Map<String, String> contents) throws IOException {
        String name = "..v" + (++version);
        Path versionDir = Files.createDirectory(dir.resolve(name));
        for (Map.Entry<String, String> file : contents.entrySet()) {
            Files.writeString(versionDir.resolve(file.getKey()), file.getValue());
        }
        Path next = dir.resolve("..data_tmp");
        Files.deleteIfExists(next);
        Files.createSymbolicLink(next, Path.of(name));
        Files.move(next, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
