package io.jetstream.kafka.launcher;

import io.jetstream.kafka.testkit.site.SiteFiles;
import io.jetstream.kafka.testkit.site.TwoSites;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jetstream sites}: starts two local sites (A and B: a KRaft broker and a Connect worker
 * each), prints their addresses and runs until interrupted, then stops both and removes their data.
 */
@Command(name = "sites", description = "start two local sites (Kafka + Connect each) and run until Ctrl-C")
final class SitesCommand implements Callable<Integer> {

    private final PrintStream out;

    @Option(names = "--keep-data", description = "keep the sites' work folder (data and logs) after Ctrl-C")
    boolean keepData;

    @Mixin
    private HelpOption help;

    SitesCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        // a fresh folder every run: process ids repeat (containers, reboots), and a broker refuses
        // data formatted for another cluster id
        Path baseDir = Files.createTempDirectory(Files.createDirectories(
                SiteFiles.projectRoot().resolve("target").resolve("sites")), "run-" + ProcessHandle.current().pid() + "-");
        out.println("Starting sites A and B (work folder " + baseDir + ") ...");
        long startNanos = System.nanoTime();
        TwoSites sites = TwoSites.start(baseDir, a -> { }, b -> { });
        out.printf("Sites up in %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
        out.println("  site A  kafka " + sites.a().bootstrapServers() + "   connect " + sites.a().requireWorker().restUrl());
        out.println("  site B  kafka " + sites.b().bootstrapServers() + "   connect " + sites.b().requireWorker().restUrl());
        out.println("  logs    " + baseDir + "/site-*/{broker,connect}/logs");
        out.println("Press Ctrl-C to stop.");
        out.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        boolean removeData = !keepData;
        Thread hook = new Thread(() -> {
            out.println("Stopping sites ...");
            long stopNanos = System.nanoTime();
            sites.close();
            if (removeData) {
                deleteQuietly(baseDir);
            }
            out.printf("Sites stopped in %.1f s%n", (System.nanoTime() - stopNanos) / 1e9);
            out.flush();
            stopped.countDown();
        }, "jetstream-sites-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        stopped.await();
        return 0;
    }

    static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("Could not remove " + dir + ": " + e.getMessage());
        }
    }
}
