package io.jetstream.kafka.testkit.site;


import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect distributed worker in a child JVM, with its REST API on a loopback port and a
 * {@code plugin.path} holding this project's packaged connector plugins, so tests load connectors
 * exactly as users do.
 *
 * <p>Its properties start from {@code config/connect-worker.properties} (the file users copy) and
 * the kit overrides only what is per site: bootstrap servers, group id, internal topic names,
 * REST listener and plugin path. The file's JetStream REST extension ({@code GET /jetstream/tasks})
 * is left out of workers that could not load it: those without a JetStream plugin on their plugin
 * path (MirrorMaker 2's workers) and Connect 3.x workers (its REST API is not Jakarta RS); a worker
 * that cannot load a configured extension does not start.
 */
public final class ConnectWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConnectWorker.class);
    /** Generous: several workers starting at once on a busy 2-core machine took over 120 s. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    static final String REST_EXTENSIONS = "rest.extension.classes";

    private final String name;
    private final ConnectRuntime runtime;
    private final HostPlacement host;
    private final int restPort;
    private final JavaProcess process;
    private final ConnectRestClient rest;
    private final Path propertiesFile;

    ConnectWorker(String name, Path workDir, String bootstrapServers, List<Path> pluginPath,
                  Map<String, String> overrides, String heap, ConnectRuntime runtime) throws IOException {
        this(name, workDir, HostPlacement.LOOPBACK, bootstrapServers, pluginPath, overrides, heap, runtime);
    }

    private ConnectWorker(String name, Path workDir, HostPlacement host, String bootstrapServers,
                          List<Path> pluginPath, Map<String, String> overrides, String heap, ConnectRuntime runtime)
            throws IOException {
        this.name = name;
        this.runtime = runtime;
        this.host = host;
        this.restPort = Ports.freePort();
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(SiteFiles.configFile("connect-worker.properties"))) {
            props.load(in);
        }
        props.setProperty("bootstrap.servers", bootstrapServers);
        props.setProperty("group.id", name + "-connect");
        props.setProperty("config.storage.topic", "_" + name + "-connect-configs");
        props.setProperty("offset.storage.topic", "_" + name + "-connect-offsets");
        props.setProperty("status.storage.topic", "_" + name + "-connect-status");
        props.setProperty("listeners", "http://" + host.address() + ":" + restPort);
        props.setProperty("rest.advertised.host.name", host.address());
        props.setProperty("rest.advertised.port", Integer.toString(restPort));
        props.setProperty("plugin.path", pluginPath.stream().map(Path::toString).collect(Collectors.joining(",")));
        if (!servesJetstreamTasks(pluginPath, runtime)) {
            props.remove(REST_EXTENSIONS);
        }
        props.putAll(overrides);
        Path file = workDir.resolve("connect-worker.properties");
        this.propertiesFile = file;
        Files.createDirectories(workDir);
        try (OutputStream out = Files.newOutputStream(file)) {
            props.store(out, "Connect worker of site " + name + ", written by the JetStream test kit");
        }
        this.process = new JavaProcess(name + "-connect", "org.apache.kafka.connect.cli.ConnectDistributed",
                List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseParallelGC", runtime.loggingFlag(workDir)),
                List.of(file.toString()),
                runtime.classpath(),
                workDir.resolve("logs").resolve("connect.out"), host.commandPrefix());
        this.rest = new ConnectRestClient(restUrl());
    }

    /**
     * Whether a worker of {@code runtime} with {@code pluginPath} can load the JetStream REST
     * extension: a Connect 4.x (Jakarta RS) worker with a JetStream plugin in one of the folders.
     */
    static boolean servesJetstreamTasks(List<Path> pluginPath, ConnectRuntime runtime) throws IOException {
        if (runtime.version().startsWith("3.")) {
            return false;
        }
        for (Path folder : pluginPath) {
            if (!Files.isDirectory(folder)) {
                continue;
            }
            try (Stream<Path> plugins = Files.list(folder)) {
                if (plugins.anyMatch(plugin -> plugin.getFileName().toString().startsWith("jetstream-"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A worker (not started) on {@code host}: its REST listener binds to and advertises the host's
     * address; it joins the Connect cluster at {@code bootstrapServers} (which need not be the
     * site's own broker: MirrorMaker 2 placed at the source writes to the remote cluster).
     * {@code overrides} are applied last, e.g. a group id shared by several workers.
     */
    public static ConnectWorker onHost(String name, Path workDir, HostPlacement host, String bootstrapServers,
                                       List<Path> pluginPath, Map<String, String> overrides, String heap)
            throws IOException {
        return new ConnectWorker(name, workDir, host, bootstrapServers, pluginPath, overrides, heap,
                ConnectRuntime.project());
    }

    /** Starts the worker and waits until its REST API answers and it has joined its group. */
    public void start() throws IOException, TimeoutException, InterruptedException {
        long startNanos = System.nanoTime();
        process.start();
        try {
            await(name + " Connect worker REST API at " + restUrl())
                    .atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException(name + " Connect worker exited:\n" + process.tail(40));
                        }
                        // GET /connectors answers only once the worker has read its config topic (joined the group).
                        rest.connectors();
                        return true;
                    });
        } catch (ConditionTimeoutException e) {
            throw new TimeoutException(e.getMessage() + "\n" + process.tail(40));
        }
        log.info("Connect worker of site {} ready at {} in {} ms", name, restUrl(),
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    /**
     * Changes one worker property in the worker's properties file: it takes effect at the next
     * {@link #start()}, as an operator's edit does (e.g. {@code exactly.once.source.support}).
     */
    public void setProperty(String key, String value) throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(propertiesFile)) {
            props.load(in);
        }
        props.setProperty(key, value);
        try (OutputStream out = Files.newOutputStream(propertiesFile)) {
            props.store(out, "Connect worker of site " + name + ", written by the JetStream test kit");
        }
    }

    /** Graceful stop (SIGTERM): tasks stop and commit. */
    public void stop() {
        process.stop(Duration.ofSeconds(40));
    }

    /** Abrupt stop (SIGKILL), as a crashed worker host. */
    public void kill() {
        process.kill();
    }

    public boolean isRunning() {
        return process.isAlive();
    }

    /** The Kafka Connect runtime the worker runs (class path, version). */
    public ConnectRuntime runtime() {
        return runtime;
    }

    public String name() {
        return name;
    }

    /** The id Connect's REST status gives this worker ({@code host:port} of its REST listener). */
    public String workerId() {
        return host.address() + ":" + restPort;
    }

    public URI restUrl() {
        return URI.create("http://" + host.address() + ":" + restPort);
    }

    public ConnectRestClient rest() {
        return rest;
    }

    public JavaProcess process() {
        return process;
    }

    @Override
    public void close() {
        stop();
    }
}
