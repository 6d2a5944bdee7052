package io.jetstream.kafka.launcher;

import static io.jetstream.kafka.launcher.OptionChecks.requireOneOf;
import static io.jetstream.kafka.launcher.OptionChecks.requireWithin;

import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of {@code ./jetstream demo} as picocli reads them (a mixin of {@link DemoCommand});
 * {@link #options()} checks each value's range and makes the {@link DemoOptions} the demo runs with.
 */
final class DemoArguments {

    static final int EVENTS = 200_000;
    static final int AVRO_EVENTS = 20_000;

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--events", paramLabel = "N",
            description = "events to replicate (default " + EVENTS + "; " + AVRO_EVENTS + " with --avro)")
    private Integer events;

    @Option(names = "--routes", paramLabel = "K", defaultValue = "3",
            description = "WAN routes between the sites, 1 to 3 (default ${DEFAULT-VALUE})")
    private int routes;

    @Option(names = "--link-mbps", paramLabel = "M", defaultValue = "0.5",
            description = "rate cap of each route in MB/s of wire bytes (default ${DEFAULT-VALUE}: slow enough that"
                    + " the demo is link-bound on a 2-core machine, so three routes visibly beat one)")
    private double linkMbps;

    @Option(names = "--delay-ms", paramLabel = "D", defaultValue = "25",
            description = "one-way delay of each route in ms (default ${DEFAULT-VALUE})")
    private long delayMs;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "0",
            description = "producer rate in events/s, 0 = unthrottled (default ${DEFAULT-VALUE})")
    private int rate;

    @Option(names = "--value-bytes", paramLabel = "B", defaultValue = "512",
            description = "value size in bytes (default ${DEFAULT-VALUE})")
    private int valueBytes;

    @Option(names = "--timeout-s", paramLabel = "S", defaultValue = "300",
            description = "longest wait for delivery (default ${DEFAULT-VALUE})")
    private long timeoutS;

    @Option(names = "--routing", paramLabel = "P",
            description = "ingress routing policy, round-robin or adaptive (default: the relay's default)")
    private String routing;

    @Option(names = "--keep-running",
            description = "keep sites, relays and connectors running after the RESULT line")
    private boolean keepRunning;

    @Option(names = "--avro",
            description = "Avro values with a schema registry per site (Apicurio): the schema evolves mid-stream,"
                    + " ids are translated; shows the ids of both sites and checks every value decoded at B through"
                    + " registry B (default events " + AVRO_EVENTS + ")")
    private boolean avro;

    /** The checked options; a value out of range or not one of the choices fails naming its option. */
    DemoOptions options() {
        CommandLine cli = command.commandLine();
        if (events != null) {
            requireWithin(cli, "--events", events, 1, 100_000_000);
        }
        requireWithin(cli, "--routes", routes, 1, 3);
        requireWithin(cli, "--link-mbps", linkMbps, 0.01, 10_000);
        requireWithin(cli, "--delay-ms", delayMs, 0, 5_000);
        requireWithin(cli, "--rate", rate, 0, 10_000_000);
        requireWithin(cli, "--value-bytes", valueBytes, 24, 1_000_000);
        requireWithin(cli, "--timeout-s", timeoutS, 10, 86_400);
        String routingPolicy = requireOneOf(cli, "--routing", routing, "round-robin", "adaptive");
        int eventCount = events != null ? events : avro ? AVRO_EVENTS : EVENTS;
        return new DemoOptions(eventCount, routes, Math.round(linkMbps * 1_000_000), Duration.ofMillis(delayMs), rate,
                valueBytes, Duration.ofSeconds(timeoutS), keepRunning, routingPolicy, avro);
    }
}
