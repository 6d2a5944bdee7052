package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * File locks that keep WAN networks on one machine from stepping on each other, across JVMs.
 *
 * <ul>
 *   <li>The <em>owner</em> lock of a prefix is held for as long as a network with that prefix is up. The kernel drops
 *       it when the owning process dies, however it dies, so "the lock is free but namespaces exist" means exactly
 *       "leftovers of a crashed run", which may be removed; a held lock means the network is live and must be left
 *       alone.</li>
 *   <li>The <em>build</em> lock is held while a network is torn down and built, so that two networks starting at once
 *       never pick the same address slot.</li>
 * </ul>
 * Lock files live in {@code /run/jetstream-wan} (a tmpfs emptied at boot, like the namespaces themselves), or in the
 * temporary directory where there is no {@code /run}.
 */
final class WanLocks {

    private static final Object BUILD_MONITOR = new Object();

    private WanLocks() {
    }

    /** A held lock; closing releases it (once; closing again does nothing). */
    interface Held extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    /** Takes the owner lock of {@code prefix}, or throws if a live process (this one included) holds it. */
    static Held owner(String prefix) throws IOException {
        Path file = directory().resolve(prefix + ".lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IOException("A WAN network with prefix '" + prefix + "' is up in a running process (lock "
                    + file + " is held); close it there, or choose another prefix");
        }
        FileLock held = lock;
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                try (channel) {
                    held.release();
                }
            }
        };
    }

    /** Runs {@code action} holding the machine-wide build lock. */
    static <T> T whileBuilding(IoAction<T> action) throws IOException, InterruptedException {
        synchronized (BUILD_MONITOR) { // file locks are per process: threads of one JVM queue here
            try (FileChannel channel = FileChannel.open(directory().resolve("build.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                return action.run();
            }
        }
    }

    /** Something done under a lock. */
    @FunctionalInterface
    interface IoAction<T> {
        T run() throws IOException, InterruptedException;
    }

    private static Path directory() throws IOException {
        Path run = Path.of("/run");
        Path directory = Files.isDirectory(run) && Files.isWritable(run)
                ? run.resolve("jetstream-wan")
                : Path.of(System.getProperty("java.io.tmpdir"), "jetstream-wan");
        return Files.createDirectories(directory);
    }
}
