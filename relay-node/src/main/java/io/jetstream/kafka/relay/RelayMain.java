package io.jetstream.kafka.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;

import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RelayConfigException;
import io.jetstream.kafka.relay.datapath.ProtocolDataPipelineFactory;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.DataPipelineFactory;
import io.jetstream.kafka.relay.server.RelayServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Command line of the standalone relay: {@code java -jar jetstream-relay-node-<v>-all.jar --config FILE}
 * (the container's entry point); {@code ./jetstream relay --config FILE} (the launcher's
 * {@code RelayCommand}) runs it with the same arguments.
 *
 * <p>Validates the configuration (every problem printed, naming its key; exit 2), starts the
 * relay (exit 1 if a listener cannot bind), and blocks until it stops. SIGTERM or Ctrl-C drains
 * gracefully: /health turns DRAINING, in-flight batches get {@code shutdown.drain.timeout.ms} to
 * be acknowledged, then connections close.
 */
public final class RelayMain {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE_OR_CONFIG = 2;

    private static final String LOG_CONFIG_PROPERTY = "log4j2.configurationFile";
    private static final String BUNDLED_LOG_CONFIG = "jetstream-relay-log4j2.xml";
    private static final String USAGE = """
            Usage: java -jar jetstream-relay-node-all.jar --config FILE [--check]

              --config FILE   relay configuration (YAML); see docs/relay.md
              --check         validate the configuration, print a summary and exit
              --help          this text

            Exit codes: 0 stopped normally, 1 failed to start, 2 bad arguments or configuration.""";

    private RelayMain() {
    }

    public static void main(String[] args) {
        useBundledLogging();
        int code = run(args, System.out, System.err);
        if (code != EXIT_OK) {
            System.exit(code);
        }
    }

    /**
     * Selects the relay's bundled logging configuration (INFO for the relay, {@code
     * JETSTREAM_LOG_LEVEL} to change it) unless {@code -Dlog4j2.configurationFile} is given. Call
     * before the first logger is created.
     */
    public static void useBundledLogging() {
        if (System.getProperty(LOG_CONFIG_PROPERTY) == null) {
            System.setProperty(LOG_CONFIG_PROPERTY, BUNDLED_LOG_CONFIG);
        }
    }

    /**
     * Runs the relay until it stops; returns the process exit code. Also the entry point of
     * {@code ./jetstream relay} (the launcher's {@code RelayCommand}).
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Arguments arguments;
        try {
            arguments = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("relay: " + e.getMessage());
            err.println(USAGE);
            return EXIT_USAGE_OR_CONFIG;
        }
        if (arguments.help()) {
            out.println(USAGE);
            return EXIT_OK;
        }
        RelayConfig config;
        try {
            config = RelayConfig.load(arguments.config());
        } catch (RelayConfigException e) {
            err.println("relay: " + e.getMessage());
            return EXIT_USAGE_OR_CONFIG;
        }
        if (arguments.checkOnly()) {
            out.println("relay: configuration " + arguments.config() + " is valid: " + config.summary());
            return EXIT_OK;
        }
        return serve(config, err);
    }

    private static int serve(RelayConfig config, PrintStream err) {
        Logger log = LoggerFactory.getLogger(RelayMain.class);
        log.info("Starting relay: {}", config.summary());
        RelayMetrics metrics = new RelayMetrics(config.relayId());
        metrics.registerJvmMetrics(); // this relay owns the process
        RelayServer server = new RelayServer(config, metrics, dataPath());
        // Installed before start(): a SIGTERM during start-up waits for it, then drains.
        Thread shutdownHook = new Thread(() -> {
            log.info("Shutdown signal received");
            server.close();
            metrics.close();
            stopLogging();
        }, "relay-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            server.start();
        } catch (IOException | RelayConfigException e) {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
            metrics.close();
            err.println("relay: " + e.getMessage());
            return e instanceof RelayConfigException ? EXIT_USAGE_OR_CONFIG : EXIT_FAILED;
        }
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return EXIT_OK;
    }

    /** The data-path handlers: the JetStream protocol, routing at the ingress as {@code routing.policy} says. */
    public static DataPipelineFactory dataPath() {
        return new ProtocolDataPipelineFactory();
    }

    /** Log4j's own hook is disabled (see the bundled config) so that the drain is logged; stop it last. */
    private static void stopLogging() {
        try {
            Class.forName("org.apache.logging.log4j.LogManager").getMethod("shutdown").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            // Another logging backend: nothing to stop.
        }
    }

    /** Parsed command line. */
    record Arguments(Path config, boolean checkOnly, boolean help) {

        static Arguments parse(String[] args) {
            Path config = null;
            boolean check = false;
            for (Iterator<String> it = Arrays.asList(args).iterator(); it.hasNext(); ) {
                String arg = it.next();
                if (arg.equals("--help") || arg.equals("-h")) {
                    return new Arguments(null, false, true);
                } else if (arg.equals("--check")) {
                    check = true;
                } else if (arg.equals("--config") || arg.equals("-c")) {
                    if (!it.hasNext()) {
                        throw new IllegalArgumentException(arg + " needs a file name");
                    }
                    config = Path.of(it.next());
                } else if (arg.startsWith("--config=")) {
                    config = Path.of(arg.substring("--config=".length()));
                } else {
                    throw new IllegalArgumentException("unknown argument " + arg);
                }
            }
            if (config == null) {
                throw new IllegalArgumentException("--config FILE is required");
            }
            return new Arguments(config, check, false);
        }
    }
}
