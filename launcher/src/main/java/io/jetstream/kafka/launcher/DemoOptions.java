package io.jetstream.kafka.launcher;

import java.time.Duration;

/**
 * Options of {@code ./jetstream demo}.
 *
 * @param events      events to replicate in total
 * @param routes      WAN routes, 1 to 3
 * @param linkRate    rate cap of each route's link, bytes/s
 * @param oneWayDelay one-way propagation delay of each link
 * @param rate        producer rate, events/s (0 = as fast as possible)
 * @param valueBytes  size of each value
 * @param timeout     longest wait for delivery
 * @param keepRunning keep everything running after the RESULT line
 * @param batching    the source connector's {@code batch.policy}, or null for the one in config/
 * @param routing     the ingress relay's {@code routing.policy}, or null for the relay's default
 * @param avro        Avro records with a schema registry per site, ids translated ({@code --avro})
 */
record DemoOptions(int events, int routes, long linkRate, Duration oneWayDelay, int rate, int valueBytes,
                   Duration timeout, boolean keepRunning, String batching, String routing, boolean avro) {

    static final String USAGE = String.join("\n",
            "usage: ./jetstream demo [options]",
            "  --events N         events to replicate (default 200000)",
            "  --routes K         WAN routes between the sites, 1 to 3 (default 3)",
            "  --link-mbps M      rate cap of each route in MB/s of wire bytes (default 0.5: slow enough that the",
            "                     demo is link-bound on a 2-core machine, so three routes visibly beat one)",
            "  --delay-ms D       one-way delay of each route in ms (default 25)",
            "  --rate R           producer rate in events/s, 0 = unthrottled (default 0)",
            "  --value-bytes B    value size in bytes (default 512)",
            "  --timeout-s S      longest wait for delivery (default 300)",
            "  --batching P       source batching policy, fixed or adaptive (default: config/source-connector.json)",
            "  --routing P        ingress routing policy, round-robin or adaptive (default: the relay's default)",
            "  --keep-running     keep sites, relays and connectors running after the RESULT line",
            "  --avro             Avro values with a schema registry per site (Apicurio): the schema evolves",
            "                     mid-stream, ids are translated; shows the ids of both sites and checks every",
            "                     value decoded at B through registry B (default events 20000)");

    static DemoOptions parse(String[] args) throws JetstreamCli.UsageException {
        Integer events = null;
        boolean avro = false;
        int routes = 3;
        double linkMbps = 0.5;
        long delayMs = 25;
        int rate = 0;
        int valueBytes = 512;
        long timeoutS = 300;
        boolean keepRunning = false;
        String batching = null;
        String routing = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--keep-running" -> keepRunning = true;
                case "--avro" -> avro = true;
                case "--events" -> events = (int) number(args, ++i, arg, 1, 100_000_000);
                case "--routes" -> routes = (int) number(args, ++i, arg, 1, 3);
                case "--link-mbps" -> linkMbps = number(args, ++i, arg, 0.01, 10_000);
                case "--delay-ms" -> delayMs = (long) number(args, ++i, arg, 0, 5_000);
                case "--rate" -> rate = (int) number(args, ++i, arg, 0, 10_000_000);
                case "--value-bytes" -> valueBytes = (int) number(args, ++i, arg, 24, 1_000_000);
                case "--timeout-s" -> timeoutS = (long) number(args, ++i, arg, 10, 86_400);
                case "--batching" -> batching = choice(args, ++i, arg, "fixed", "adaptive");
                case "--routing" -> routing = choice(args, ++i, arg, "round-robin", "adaptive");
                case "--help", "-h" -> throw new JetstreamCli.UsageException(USAGE);
                default -> throw new JetstreamCli.UsageException("unknown option: " + arg + "\n" + USAGE);
            }
        }
        return new DemoOptions(events != null ? events : avro ? 20_000 : 200_000, routes, Math.round(linkMbps * 1_000_000), Duration.ofMillis(delayMs), rate,
                valueBytes, Duration.ofSeconds(timeoutS), keepRunning, batching, routing, avro);
    }

    private static String choice(String[] args, int index, String option, String... allowed)
            throws JetstreamCli.UsageException {
        if (index >= args.length) {
            throw new JetstreamCli.UsageException(option + " needs a value\n" + USAGE);
        }
        for (String value : allowed) {
            if (value.equals(args[index])) {
                return value;
            }
        }
        throw new JetstreamCli.UsageException(option + ": '" + args[index] + "' is not one of "
                + String.join(", ", allowed));
    }

    private static double number(String[] args, int index, String option, double min, double max)
            throws JetstreamCli.UsageException {
        if (index >= args.length) {
            throw new JetstreamCli.UsageException(option + " needs a value\n" + USAGE);
        }
        double value;
        try {
            value = Double.parseDouble(args[index]);
        } catch (NumberFormatException e) {
            throw new JetstreamCli.UsageException(option + ": '" + args[index] + "' is not a number\n" + USAGE);
        }
        if (value < min || value > max) {
            throw new JetstreamCli.UsageException(option + ": " + args[index] + " is not between " + min + " and " + max);
        }
        return value;
    }
}
