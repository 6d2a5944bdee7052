package io.jetstream.kafka.testkit.docker;

import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the relay's image from {@code relay-node/Dockerfile} as users do, on a base image made
 * from this machine's JDK by {@code relay-node/docker/make-base-image.sh} (the Dockerfile's
 * {@code BASE_IMAGE} build argument), since no image can be pulled here.
 */
public final class RelayImage {

    private static final Logger log = LoggerFactory.getLogger(RelayImage.class);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);

    private RelayImage() {
    }

    /**
     * Makes the base image {@code baseTag} (unless the engine has it) and builds the relay image
     * {@code tag} on it from {@code relay-node/}; the relay's fat jar must have been packaged.
     *
     * @return {@code tag}
     */
    public static String build(DockerEngine docker, String baseTag, String tag) throws IOException, InterruptedException {
        Path module = SiteFiles.projectRoot().resolve("relay-node");
        requireFatJar(module.resolve("target"));
        if (!docker.docker(Duration.ofSeconds(30), "image", "inspect", baseTag).ok()) {
            long startNanos = System.nanoTime();
            Path script = module.resolve("docker").resolve("make-base-image.sh");
            DockerEngine.Result made = docker.command(BUILD_TIMEOUT, Map.of("JAVA_HOME", jdkHome()),
                    List.of("bash", script.toString(), baseTag));
            if (!made.ok()) {
                throw new IOException(script + " exited with " + made.exit() + ":\n" + made.output());
            }
            log.info("Base image {} made in {} ms: {}", baseTag, (System.nanoTime() - startNanos) / 1_000_000,
                    made.output().strip());
        }
        long startNanos = System.nanoTime();
        // The classic builder: it takes a FROM image from the engine's own store, as every engine
        // version does (BuildKit would want the docker-container driver or a registry for that).
        DockerEngine.Result built = docker.docker(BUILD_TIMEOUT, Map.of("DOCKER_BUILDKIT", "0"),
                "build", "--build-arg", "BASE_IMAGE=" + baseTag, "-t", tag, module.toString());
        if (!built.ok()) {
            throw new IOException("docker build of " + module + " exited with " + built.exit() + ":\n" + built.output());
        }
        log.info("Relay image {} built on {} in {} ms", tag, baseTag, (System.nanoTime() - startNanos) / 1_000_000);
        return tag;
    }

    private static void requireFatJar(Path target) throws IOException {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(target, "jetstream-relay-node-*-all.jar")) {
            if (jars.iterator().hasNext()) {
                return;
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        }
        throw new IOException("No relay fat jar in " + target + ": run 'mvn -DskipTests package' first");
    }

    /** The running JDK (it has jlink), for the base image script. */
    private static String jdkHome() throws IOException {
        Path home = Path.of(System.getProperty("java.home"));
        if (!Files.isExecutable(home.resolve("bin").resolve("jlink"))) {
            throw new IOException("The test JVM at " + home + " has no jlink: run the tests on a JDK");
        }
        return home.toString();
    }
}
