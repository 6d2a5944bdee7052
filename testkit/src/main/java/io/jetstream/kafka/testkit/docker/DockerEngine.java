package io.jetstream.kafka.testkit.docker;


import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Docker engine for tests, driven through the {@code docker} CLI. The engine that
 * {@code DOCKER_HOST} (or the default socket) names is used when it answers; otherwise, when the
 * {@code dockerd} binary is installed, a private daemon is started for the test and stopped by
 * {@link #close()}: its own socket, data and exec folders (nothing shared with a system daemon),
 * {@code --bridge=none --iptables=false}, so containers can only use {@code --network host} and
 * the host's firewall and routes stay untouched. No image can be pulled here (Docker Hub is out of
 * reach): images are imported or built locally ({@link RelayImage}).
 */
public final class DockerEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DockerEngine.class);
    private static final Duration INFO_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration DAEMON_START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration DAEMON_STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final List<String> SBIN = List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin",
            "/usr/local/bin");

    private final String cli;
    private final String host;
    private final Process daemon;
    private final Path daemonDir;
    private final String version;

    private DockerEngine(String cli, String host, Process daemon, Path daemonDir, String version) {
        this.cli = cli;
        this.host = host;
        this.daemon = daemon;
        this.daemonDir = daemonDir;
        this.version = version;
    }

    /**
     * The running engine, or a private one started here.
     *
     * @throws DockerUnavailableException naming why no engine can run (no CLI, no daemon and no
     *                                    {@code dockerd}, or a daemon that did not start: its log's tail)
     */
    public static DockerEngine start() throws DockerUnavailableException, InterruptedException {
        String cli = executable("docker", List.of()).orElseThrow(() ->
                new DockerUnavailableException("no docker CLI on the PATH"));
        String configured = System.getenv("DOCKER_HOST");
        Optional<String> running = serverVersion(cli, configured);
        if (running.isPresent()) {
            log.info("Using the running Docker engine {} at {}", running.get(),
                    configured == null ? "the default socket" : configured);
            return new DockerEngine(cli, configured, null, null, running.get());
        }
        String dockerd = executable("dockerd", SBIN).orElseThrow(() -> new DockerUnavailableException(
                "no Docker daemon answers" + (configured == null ? "" : " at DOCKER_HOST=" + configured)
                        + " and dockerd is not installed (apt-get install --no-install-recommends docker.io)"));
        return startPrivateDaemon(cli, dockerd);
    }

    private static DockerEngine startPrivateDaemon(String cli, String dockerd)
            throws DockerUnavailableException, InterruptedException {
        Path dir;
        try {
            // Under /tmp, not the build folder: the daemon's sockets need short paths (108 bytes).
            dir = Files.createTempDirectory(Path.of("/tmp"), "jetstream-dockerd-");
        } catch (IOException e) {
            throw new DockerUnavailableException("cannot make a folder for a private dockerd", e);
        }
        String host = "unix://" + dir.resolve("docker.sock");
        Path logFile = dir.resolve("dockerd.log");
        List<String> command = List.of(dockerd, "--bridge=none", "--iptables=false",
                "--host=" + host, "--data-root=" + dir.resolve("data"), "--exec-root=" + dir.resolve("exec"),
                "--pidfile=" + dir.resolve("dockerd.pid"));
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(logFile.toFile()).start();
        } catch (IOException e) {
            deleteQuietly(dir);
            throw new DockerUnavailableException("cannot run " + dockerd + ": " + e.getMessage(), e);
        }
        long startNanos = System.nanoTime();
        try {
            // Ends early when the daemon exits (no permission, no cgroups, a kernel without overlay...).
            await("dockerd answering at " + host)
                    .atMost(DAEMON_START_TIMEOUT).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> !process.isAlive() || serverVersion(cli, host).isPresent());
        } catch (ConditionTimeoutException e) {
            String tail = tail(logFile, 15);
            stop(process, dir);
            throw new DockerUnavailableException("dockerd did not start: " + e.getMessage() + "; its log ends:\n"
                    + tail, e);
        }
        if (!process.isAlive()) {
            String tail = tail(logFile, 15);
            int exit = process.exitValue();
            stop(process, dir);
            throw new DockerUnavailableException("dockerd exited with " + exit + " while starting; its log ends:\n"
                    + tail);
        }
        String version = serverVersion(cli, host).orElse("?");
        log.info("Started a private dockerd {} at {} in {} ms (pid {})", version, host,
                (System.nanoTime() - startNanos) / 1_000_000, process.pid());
        return new DockerEngine(cli, host, process, dir, version);
    }

    /** The server version, when a daemon answers at {@code host} (null: the CLI's default). */
    private static Optional<String> serverVersion(String cli, String host) throws InterruptedException {
        try {
            Result result = run(cli, host, INFO_TIMEOUT, List.of("version", "--format", "{{.Server.Version}}"), null);
            return result.ok() && !result.output().isBlank() ? Optional.of(result.output().strip()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Runs {@code docker args...} against this engine; never throws for a non-zero exit. */
    public Result docker(Duration timeout, String... args) throws IOException, InterruptedException {
        return docker(timeout, Map.of(), args);
    }

    /** Runs {@code docker args...} with extra environment variables. */
    public Result docker(Duration timeout, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return run(cli, host, timeout, Arrays.asList(args), env);
    }

    /** Runs {@code docker args...} and fails with its output unless it exits 0. */
    public String dockerOk(Duration timeout, String... args) throws IOException, InterruptedException {
        Result result = docker(timeout, args);
        if (!result.ok()) {
            throw new IOException("docker " + String.join(" ", args) + " exited with " + result.exit() + ":\n"
                    + result.output());
        }
        return result.output();
    }

    /**
     * Runs any command (a script that calls {@code docker}) with {@code DOCKER_HOST} set to this
     * engine.
     */
    public Result command(Duration timeout, Map<String, String> env, List<String> command)
            throws IOException, InterruptedException {
        return exec(command, host, timeout, env);
    }

    private static Result run(String cli, String host, Duration timeout, List<String> args, Map<String, String> env)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(cli);
        command.addAll(args);
        return exec(command, host, timeout, env);
    }

    private static Result exec(List<String> command, String host, Duration timeout, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (host != null) {
            builder.environment().put("DOCKER_HOST", host);
        }
        if (env != null) {
            builder.environment().putAll(env);
        }
        Path output = Files.createTempFile("jetstream-docker-", ".out");
        try {
            builder.redirectOutput(output.toFile());
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(-1, "timed out after " + timeout.toSeconds() + " s: " + String.join(" ", command)
                        + "\n" + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * Runs {@code java -version} in a container of {@code image}, to tell an engine that cannot run
     * containers here (exit 125: no runtime, no cgroups, no permission) from an image that is broken
     * (any other failure).
     *
     * @throws DockerUnavailableException when the engine could not run the container
     * @throws IOException                when the container ran and {@code java -version} failed
     */
    public void requireContainers(String image) throws DockerUnavailableException, IOException, InterruptedException {
        Result result = docker(Duration.ofMinutes(2), "run", "--rm", "--network", "host", image, "java", "-version");
        if (result.exit() == 125) {
            throw new DockerUnavailableException("the engine cannot run containers here (docker run exited 125): "
                    + result.output().strip());
        }
        if (!result.ok()) {
            throw new IOException("java -version in a container of " + image + " exited with " + result.exit() + ":\n"
                    + result.output());
        }
    }

    /** The server's version, e.g. {@code 20.10.24+dfsg1}. */
    public String version() {
        return version;
    }

    /** True when this engine is the private daemon started by {@link #start()}. */
    public boolean isPrivate() {
        return daemon != null;
    }

    /** The {@code DOCKER_HOST} of this engine, or null for the CLI's default. */
    public String host() {
        return host;
    }

    /** Stops the private daemon (its containers die with it) and deletes its folders; a shared engine is left alone. */
    @Override
    public void close() {
        if (daemon != null) {
            stop(daemon, daemonDir);
        }
    }

    private static void stop(Process process, Path dir) {
        long startNanos = System.nanoTime();
        process.destroy();
        try {
            if (!process.waitFor(DAEMON_STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("dockerd (pid {}) did not stop within {} s: killing it", process.pid(),
                        DAEMON_STOP_TIMEOUT.toSeconds());
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        log.info("Stopped the private dockerd (pid {}) in {} ms", process.pid(),
                (System.nanoTime() - startNanos) / 1_000_000);
        unmountUnder(dir);
        deleteQuietly(dir);
    }

    /** The daemon leaves its network namespace bound under its exec folder: unmount what is left there. */
    private static void unmountUnder(Path dir) {
        List<String> mountPoints;
        try {
            mountPoints = Files.readAllLines(Path.of("/proc/self/mounts"), StandardCharsets.UTF_8).stream()
                    .map(line -> line.split(" "))
                    .filter(fields -> fields.length > 1 && fields[1].startsWith(dir.toString()))
                    .map(fields -> fields[1])
                    .sorted(Comparator.reverseOrder())
                    .toList();
        } catch (IOException e) {
            return;
        }
        for (String mountPoint : mountPoints) {
            try {
                Result result = exec(List.of("umount", "-l", mountPoint), null, Duration.ofSeconds(10), Map.of());
                if (!result.ok()) {
                    log.warn("Could not unmount {}: {}", mountPoint, result.output().strip());
                }
            } catch (IOException e) {
                log.warn("Could not unmount {}: {}", mountPoint, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete {}: {}", dir, e.toString());
        }
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** An executable on the PATH, else in one of {@code extraDirs}. */
    static Optional<String> executable(String name, List<String> extraDirs) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(Arrays.asList(path.split(File.pathSeparator)));
        }
        dirs.addAll(extraDirs);
        return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable).map(Path::toString).findFirst();
    }

    /** What a command printed (standard output and error together) and its exit code (-1: timed out). */
    public record Result(int exit, String output) {
        public boolean ok() {
            return exit == 0;
        }
    }
}
