package io.jetstream.kafka.testkit.docker;


import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay running in a container of the relay image, as an operator runs it: its YAML mounted at
 * {@code /etc/jetstream/relay.yaml}, its TLS files at {@code /etc/jetstream/tls}, secrets in the
 * environment, on the host's network (the only network of an engine started with
 * {@code --bridge=none}), so it listens on the ports its configuration names.
 */
public final class RelayContainer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayContainer.class);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    private final DockerEngine docker;
    private final String name;
    private final int adminPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private RelayContainer(DockerEngine docker, String name, int adminPort) {
        this.docker = docker;
        this.name = name;
        this.adminPort = adminPort;
    }

    /**
     * Starts a container named {@code name} from {@code image}.
     *
     * @param config    the relay's YAML file (its admin listener must be on 127.0.0.1:{@code adminPort})
     * @param tlsDir    folder mounted read-only at /etc/jetstream/tls, or null
     * @param env       environment variables of the container (e.g. tokens the YAML reads with ${env:...})
     */
    public static RelayContainer start(DockerEngine docker, String image, String name, Path config, Path tlsDir,
                                       Map<String, String> env, int adminPort) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("run", "-d", "--name", name, "--network", "host",
                "-v", config.toAbsolutePath() + ":/etc/jetstream/relay.yaml:ro"));
        if (tlsDir != null) {
            args.addAll(List.of("-v", tlsDir.toAbsolutePath() + ":/etc/jetstream/tls:ro"));
        }
        env.forEach((key, value) -> args.addAll(List.of("-e", key + "=" + value)));
        args.addAll(List.of("-e", "JETSTREAM_ADMIN_PORT=" + adminPort, image));
        docker.docker(COMMAND_TIMEOUT, "rm", "-f", name);
        docker.dockerOk(COMMAND_TIMEOUT, args.toArray(String[]::new));
        return new RelayContainer(docker, name, adminPort);
    }

    /** Waits until {@code GET /health} answers 200; the container's log is in the timeout's message. */
    public void awaitHealthy(Duration timeout) throws InterruptedException, IOException {
        try {
            await("relay container " + name + " answering 200 on /health")
                    .atMost(timeout).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> {
                        if (!"running".equals(state())) {
                            throw new IllegalStateException("container " + name + " is " + state());
                        }
                        return get("/health").statusCode() == 200;
                    });
        } catch (ConditionTimeoutException e) {
            throw new IOException(e.getMessage() + "\ncontainer log:\n" + logs(), e);
        }
    }

    /** {@code GET path} on the relay's admin listener. */
    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The container's state ({@code running}, {@code exited}...). */
    public String state() throws IOException, InterruptedException {
        return docker.dockerOk(COMMAND_TIMEOUT, "inspect", "--format", "{{.State.Status}}", name).strip();
    }

    /** The image health check's verdict ({@code starting}, {@code healthy}, {@code unhealthy}). */
    public String health() throws IOException, InterruptedException {
        return docker.dockerOk(COMMAND_TIMEOUT, "inspect", "--format", "{{.State.Health.Status}}", name).strip();
    }

    /** The user the container's process runs as, from the image ({@code uid:gid}). */
    public String user() throws IOException, InterruptedException {
        return docker.dockerOk(COMMAND_TIMEOUT, "inspect", "--format", "{{.Config.User}}", name).strip();
    }

    /** Standard output and error of the relay so far; never throws (for failure messages). */
    public String logs() {
        try {
            return docker.docker(COMMAND_TIMEOUT, "logs", name).output();
        } catch (IOException e) {
            return "(no logs: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no logs: interrupted)";
        }
    }

    /** {@code docker stop} (SIGTERM: the relay drains) and the exit code it stopped with. */
    public int stop(Duration grace) throws IOException, InterruptedException {
        docker.dockerOk(COMMAND_TIMEOUT.plus(grace), "stop", "-t", Long.toString(grace.toSeconds()), name);
        return Integer.parseInt(docker.dockerOk(COMMAND_TIMEOUT, "inspect", "--format", "{{.State.ExitCode}}", name)
                .strip());
    }

    public String name() {
        return name;
    }

    /** Removes the container, running or not. */
    @Override
    public void close() {
        try {
            docker.docker(COMMAND_TIMEOUT, "rm", "-f", name);
        } catch (IOException e) {
            log.warn("Could not remove container {}: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
