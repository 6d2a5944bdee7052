package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delay line's executable: {@code delayline.c} from the classpath (next to this class), compiled with
 * {@code gcc -O2} into the work directory under a name that carries the source's hash, so that it is compiled once per
 * source version and work directory, and a changed source is never run from a stale binary. Compilation writes a temporary file and renames it,
 * so two JVMs sharing a work directory never run a half-written binary.
 */
final class DelayLineBinary {

    private static final Logger log = LoggerFactory.getLogger(DelayLineBinary.class);
    static final String SOURCE_RESOURCE = "delayline.c";

    private DelayLineBinary() {
    }

    /** Returns the compiled delay line in {@code workDir}, compiling it first if this source version is not there. */
    static Path compile(Path workDir, CommandRunner runner) throws IOException, InterruptedException {
        byte[] source = source();
        String name = "delayline-" + sourceHash(source);
        Path binary = workDir.resolve(name);
        if (Files.isExecutable(binary)) {
            log.debug("Using the compiled delay line {}", binary);
            return binary;
        }
        Files.createDirectories(workDir);
        Path sourceFile = workDir.resolve(name + ".c");
        Files.write(sourceFile, source);
        Path temporary = workDir.resolve(name + ".tmp-" + ProcessHandle.current().pid());
        long started = System.nanoTime();
        try {
            runner.run(List.of("gcc", "-O2", "-Wall", "-Wextra", "-o", temporary.toString(), sourceFile.toString()));
            Files.move(temporary, binary, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
        log.info("Compiled the delay line {} in {} ms", binary, (System.nanoTime() - started) / 1_000_000);
        return binary;
    }

    /** First 16 hex digits of the SHA-256 of {@code source}. */
    static String sourceHash(byte[] source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(source);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    static byte[] source() throws IOException {
        try (InputStream in = DelayLineBinary.class.getResourceAsStream(SOURCE_RESOURCE)) {
            if (in == null) {
                throw new IOException("Resource " + SOURCE_RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        }
    }
}
