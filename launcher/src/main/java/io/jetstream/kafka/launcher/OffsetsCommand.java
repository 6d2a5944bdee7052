package io.jetstream.kafka.launcher;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Direction;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Row;
import io.jetstream.kafka.core.offsets.OffsetMapReader;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code ./jetstream offsets translate}: a consumer group's committed positions on one site,
 * translated exactly to the other site through the destination's offset map, printed, and with
 * {@code --commit} committed there (failover and failback, {@code docs/failover.md}). Exit codes:
 * 0 every position exact (and committed when asked), 1 some position not exact or the commit
 * refused, 2 bad usage.
 */
final class OffsetsCommand implements JetstreamCli.Command {

    static final String USAGE = String.join("\n",
            "usage: ./jetstream offsets translate --group G --topic T --direction to-destination|to-origin",
            "           --origin-bootstrap HOST:PORT --destination-bootstrap HOST:PORT --source-alias A [options]",
            "  --group G                    the consumer group",
            "  --topic T                    the topic's name at the origin (its replica's name is in the map)",
            "  --direction D                to-destination: positions committed at the origin, translated for the",
            "                               replica at the destination (failover); to-origin: positions committed on",
            "                               the replica, translated for the origin topic (failback)",
            "  --origin-bootstrap S         the origin (source) cluster",
            "  --destination-bootstrap S    the destination cluster, which holds the offset map",
            "  --source-alias A             the destination-site connector's source.cluster.alias",
            "  --map-topic M                the connector's offset.map.topic (default jetstream-offset-map.internal)",
            "  --origin-config FILE         client properties for the origin (security.protocol, ssl.*, sasl.*)",
            "  --destination-config FILE    client properties for the destination",
            "  --commit                     commit the translated positions on the other side (refused while the",
            "                               group has active members there, or when a position is not exact)",
            "  --timeout-s S                longest wait for each cluster call and the map read (default 60)");

    /** Parsed options. */
    record Options(String group, String topic, Direction direction, String originBootstrap,
                   String destinationBootstrap, String sourceAlias, String mapTopic, Path originConfig,
                   Path destinationConfig, boolean commit, Duration timeout) {
    }

    @Override
    public String summary() {
        return "translate a consumer group's positions between the sites (translate --group G --topic T ...)";
    }

    @Override
    public int run(String[] args, PrintStream out) throws Exception {
        Options options = parse(args);
        Map<String, Object> origin = clientProps(options.originBootstrap(), options.originConfig());
        Map<String, Object> destination = clientProps(options.destinationBootstrap(), options.destinationConfig());
        Map<TopicPartition, OffsetTranslator> map = OffsetMapReader.read(destination, options.mapTopic(),
                p -> p.sourceAlias().equals(options.sourceAlias()) && p.topic().equals(options.topic()),
                options.timeout());
        boolean toDestination = options.direction() == Direction.TO_DESTINATION;
        List<Row> rows;
        try (Admin from = Admin.create(toDestination ? origin : destination)) {
            rows = GroupOffsetTranslation.translate(from, options.group(), options.topic(), map, options.direction(),
                    options.timeout());
        }
        out.printf("%-10s %-30s %14s  %-30s %14s  %s%n", "PARTITION", "FROM TOPIC", "POSITION", "TO TOPIC",
                "POSITION", "STATUS");
        for (Row row : rows) {
            out.printf("%-10d %-30s %14d  %-30s %14s  %s%n", row.partition(), row.fromTopic(), row.fromOffset(),
                    row.toTopic(), row.translation().offset() < 0 ? "-" : Long.toString(row.translation().offset()),
                    row.translation().status());
        }
        if (rows.isEmpty()) {
            out.println("Group " + options.group() + " has no committed position on " + options.topic()
                    + (toDestination ? " at the origin" : "'s replica at the destination") + ".");
            return 1;
        }
        boolean exact = rows.stream().allMatch(row -> row.translation().exact());
        if (!options.commit()) {
            return exact ? 0 : 1;
        }
        try (Admin to = Admin.create(toDestination ? destination : origin)) {
            GroupOffsetTranslation.commit(to, options.group(), rows, options.timeout());
        } catch (IllegalStateException e) {
            out.println("Not committed: " + e.getMessage());
            return 1;
        }
        out.println("Committed " + rows.size() + " position(s) of group " + options.group() + " at the "
                + (toDestination ? "destination" : "origin") + ".");
        return 0;
    }

    static Options parse(String[] args) throws JetstreamCli.UsageException {
        if (args.length == 0 || !"translate".equals(args[0])) {
            throw new JetstreamCli.UsageException(USAGE);
        }
        Map<String, String> values = new HashMap<>();
        boolean commit = false;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--commit" -> commit = true;
                case "--help", "-h" -> throw new JetstreamCli.UsageException(USAGE);
                case "--group", "--topic", "--direction", "--origin-bootstrap", "--destination-bootstrap",
                        "--source-alias", "--map-topic", "--origin-config", "--destination-config", "--timeout-s" -> {
                    if (++i >= args.length) {
                        throw new JetstreamCli.UsageException(arg + " needs a value\n" + USAGE);
                    }
                    values.put(arg, args[i]);
                }
                default -> throw new JetstreamCli.UsageException("unknown option: " + arg + "\n" + USAGE);
            }
        }
        for (String required : List.of("--group", "--topic", "--direction", "--origin-bootstrap",
                "--destination-bootstrap", "--source-alias")) {
            if (!values.containsKey(required)) {
                throw new JetstreamCli.UsageException(required + " is required\n" + USAGE);
            }
        }
        Direction direction = switch (values.get("--direction")) {
            case "to-destination" -> Direction.TO_DESTINATION;
            case "to-origin" -> Direction.TO_ORIGIN;
            default -> throw new JetstreamCli.UsageException("--direction: '" + values.get("--direction")
                    + "' is not one of to-destination, to-origin");
        };
        long timeoutS;
        try {
            timeoutS = Long.parseLong(values.getOrDefault("--timeout-s", "60"));
        } catch (NumberFormatException e) {
            throw new JetstreamCli.UsageException("--timeout-s: '" + values.get("--timeout-s") + "' is not a number");
        }
        if (timeoutS < 1 || timeoutS > 3_600) {
            throw new JetstreamCli.UsageException("--timeout-s: " + timeoutS + " is not between 1 and 3600");
        }
        return new Options(values.get("--group"), values.get("--topic"), direction, values.get("--origin-bootstrap"),
                values.get("--destination-bootstrap"), values.get("--source-alias"),
                values.getOrDefault("--map-topic", "jetstream-offset-map.internal"),
                path(values.get("--origin-config")), path(values.get("--destination-config")), commit,
                Duration.ofSeconds(timeoutS));
    }

    private static Path path(String value) {
        return value == null ? null : Path.of(value);
    }

    private static Map<String, Object> clientProps(String bootstrap, Path file) throws IOException {
        Map<String, Object> props = new HashMap<>();
        if (file != null) {
            Properties loaded = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                loaded.load(in);
            }
            loaded.forEach((k, v) -> props.put((String) k, v));
        }
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }
}
