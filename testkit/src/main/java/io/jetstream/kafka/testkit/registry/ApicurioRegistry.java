package io.jetstream.kafka.testkit.registry;


import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.site.JavaProcess;
import io.jetstream.kafka.testkit.site.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A real schema registry for tests and the demo: Apicurio Registry's ready-to-run distribution
 * ({@code io.apicurio:apicurio-registry-app:2.6.13.Final:tar.gz:all}, unpacked by Maven) as a child
 * JVM bound to 127.0.0.1, in-memory storage, serving the Confluent-compatible API under
 * {@value #CCOMPAT_PATH}. Start-up takes 10-20 s (Quarkus); it is ready when
 * {@code GET /subjects} answers. Its data lives only as long as the process: stop it only at the end.
 */
public final class ApicurioRegistry implements AutoCloseable {

    /** Where Apicurio serves the Confluent Schema Registry API. */
    public static final String CCOMPAT_PATH = "/apis/ccompat/v7";
    /** System property naming the unpacked distribution folder. */
    public static final String HOME_PROPERTY = "jetstream.apicurio.home";

    private final JavaProcess process;
    private final int port;

    private ApicurioRegistry(JavaProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts a registry from the distribution under {@code home} (searched for the
     * {@code *-runner.jar}) and waits until its API answers.
     */
    public static ApicurioRegistry start(String name, Path home, Path workDir, Duration timeout)
            throws IOException, TimeoutException, InterruptedException {
        Path runner = runnerJar(home);
        String mainClass;
        try (JarFile jar = new JarFile(runner.toFile())) {
            mainClass = jar.getManifest().getMainAttributes().getValue("Main-Class");
        }
        int port = Ports.freePort();
        JavaProcess process = new JavaProcess(name, mainClass, List.of("-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.host=127.0.0.1", "-Dquarkus.management.port=" + Ports.freePort(),
                "-Dquarkus.log.level=WARN", "-Dquarkus.log.category.\"io.quarkus\".level=INFO"), List.of(),
                runner.toString(), workDir.resolve(name + ".log"));
        process.start();
        ApicurioRegistry registry = new ApicurioRegistry(process, port);
        try {
            await(name + " answering on " + registry.url())
                    .atMost(timeout).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> !process.isAlive() || registry.answers());
            if (!process.isAlive()) {
                throw new IOException(name + " exited before it answered:\n" + process.tail(40));
            }
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
        return registry;
    }

    /** The distribution folder from {@value #HOME_PROPERTY}, or {@code fallback} when unset. */
    public static Path home(Path fallback) {
        String configured = System.getProperty(HOME_PROPERTY);
        return configured == null || configured.isBlank() ? fallback : Path.of(configured);
    }

    static Path runnerJar(Path home) throws IOException {
        if (!Files.isDirectory(home)) {
            throw new IOException("No Apicurio Registry distribution at " + home + ": build the module with Maven "
                    + "first (it unpacks io.apicurio:apicurio-registry-app:tar.gz:all there)");
        }
        try (Stream<Path> files = Files.walk(home, 3)) {
            return files.filter(p -> p.getFileName().toString().endsWith("-runner.jar")).findFirst()
                    .orElseThrow(() -> new IOException("No *-runner.jar under " + home));
        }
    }

    private boolean answers() {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(url() + "/subjects")).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted", e));
        }
    }

    public int port() {
        return port;
    }

    /** Base URL of the Confluent-compatible API, e.g. {@code http://127.0.0.1:8081/apis/ccompat/v7}. */
    public String url() {
        return "http://127.0.0.1:" + port + CCOMPAT_PATH;
    }

    public JavaProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(10));
    }

    @Override
    public String toString() {
        return "Apicurio Registry at " + url() + " (" + process + ")";
    }
}
