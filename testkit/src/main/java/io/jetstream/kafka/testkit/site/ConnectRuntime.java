package io.jetstream.kafka.testkit.site;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * The Kafka Connect runtime a worker runs: its class path, its version and how it logs.
 *
 * <p>{@link #project()} is the project's own Kafka (the kit's class path without JetStream's
 * modules); {@link #kafka3x()} is Connect 3.9.2, gathered by the {@code connect-3x-worker} module
 * into its {@code target/lib}, to prove the connectors on the oldest supported line. Either way
 * the connectors load only from the worker's {@code plugin.path}.
 *
 * @param version   the Kafka version of the runtime, e.g. {@code 3.9.2}
 * @param classpath the worker JVM's class path
 * @param logging   the logging backend the runtime binds slf4j to
 */
public record ConnectRuntime(String version, String classpath, Logging logging) {

    /** Where the connect-3x-worker module puts Connect 3.9.2 and its dependencies. */
    static final String KAFKA_3X_LIB = "connect-3x-worker/target/lib";
    private static final Pattern RUNTIME_JAR = Pattern.compile("connect-runtime-(\\d+\\.\\d+\\.\\d+)\\.jar");

    /** The logging backend of a runtime: Kafka 4.x binds slf4j to log4j2, 3.x to log4j 1 (reload4j). */
    public enum Logging {
        LOG4J2,
        LOG4J1
    }

    public ConnectRuntime {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(classpath, "classpath");
        Objects.requireNonNull(logging, "logging");
    }

    /** The project's own Kafka (the version the project builds against). */
    public static ConnectRuntime project() {
        return new ConnectRuntime(AppInfoParser.getVersion(),
                JavaProcess.classpathWithoutProject(SiteFiles.projectRoot()), Logging.LOG4J2);
    }

    /** Kafka Connect 3.9.2, as the connect-3x-worker module gathered it. */
    public static ConnectRuntime kafka3x() throws IOException {
        return fromFolder(SiteFiles.projectRoot().resolve(KAFKA_3X_LIB));
    }

    /**
     * Every jar of {@code lib} (as a Kafka distribution's {@code libs/}): the version is the one of
     * its {@code connect-runtime} jar, the logging log4j 1 when it holds reload4j.
     */
    public static ConnectRuntime fromFolder(Path lib) throws IOException {
        if (!Files.isDirectory(lib)) {
            throw new IOException("No Connect runtime at " + lib + ": build it with 'mvn -pl connect-3x-worker "
                    + "package' (mvn verify does)");
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
        String version = null;
        boolean reload4j = false;
        for (Path jar : jars) {
            String name = jar.getFileName().toString();
            Matcher runtime = RUNTIME_JAR.matcher(name);
            if (runtime.matches()) {
                version = runtime.group(1);
            }
            reload4j |= name.startsWith("reload4j-");
        }
        if (version == null) {
            throw new IOException("No connect-runtime-<version>.jar in " + lib);
        }
        String classpath = String.join(File.pathSeparator, jars.stream().map(Path::toString).toList());
        return new ConnectRuntime(version, classpath, reload4j ? Logging.LOG4J1 : Logging.LOG4J2);
    }

    /** The JVM flag that points the runtime's logging at the kit's configuration, written into {@code dir}. */
    String loggingFlag(Path dir) throws IOException {
        return switch (logging) {
            case LOG4J2 -> "-Dlog4j2.configurationFile=" + SiteFiles.writeLog4j(dir).toUri();
            case LOG4J1 -> "-Dlog4j.configuration=" + SiteFiles.writeLog4j1(dir).toUri();
        };
    }

    @Override
    public String toString() {
        return "Kafka Connect " + version;
    }
}
