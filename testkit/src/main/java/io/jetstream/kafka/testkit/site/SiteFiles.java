package io.jetstream.kafka.testkit.site;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Files the kit writes into a site's working folder, and the project folders it reads. */
public final class SiteFiles {

    private static final String LOG4J_RESOURCE = "/io/jetstream/kafka/testkit/site/child-log4j2.properties";
    private static final String LOG4J1_RESOURCE = "/io/jetstream/kafka/testkit/site/child-log4j.properties";

    private SiteFiles() {
    }

    /** Writes the log4j2 configuration of child processes into {@code dir} and returns its path. */
    static Path writeLog4j(Path dir) throws IOException {
        return writeResource(LOG4J_RESOURCE, dir.resolve("log4j2.properties"));
    }

    /** The same for child processes of Kafka 3.x, which log through log4j 1 (reload4j). */
    static Path writeLog4j1(Path dir) throws IOException {
        return writeResource(LOG4J1_RESOURCE, dir.resolve("log4j.properties"));
    }

    private static Path writeResource(String resource, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        try (InputStream in = SiteFiles.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("Missing resource " + resource);
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

    /**
     * The repository root: the nearest folder at or above the working directory that holds
     * {@code config/connect-worker.properties}. Tests run in a module folder, the launcher at the
     * root; both find the same {@code config/} files users deploy.
     */
    public static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("config").resolve("connect-worker.properties"))) {
                return p;
            }
        }
        throw new UncheckedIOException(new IOException(
                "No config/connect-worker.properties at or above " + dir + ": run from the JetStream repository"));
    }

    /** A file under the project's {@code config/} folder. */
    public static Path configFile(String name) {
        return projectRoot().resolve("config").resolve(name);
    }
}
