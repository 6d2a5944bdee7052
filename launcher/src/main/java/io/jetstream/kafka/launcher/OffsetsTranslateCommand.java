package io.jetstream.kafka.launcher;

import static io.jetstream.kafka.launcher.OptionChecks.requireOneOf;
import static io.jetstream.kafka.launcher.OptionChecks.requireWithin;

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
import java.util.concurrent.Callable;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./jetstream offsets translate}: a consumer group's committed positions on one site,
 * translated exactly to the other site through the destination's offset map, printed, and with
 * {@code --commit} committed there (failover and failback, {@code docs/failover.md}). Exit codes:
 * 0 every position exact (and committed when asked), 1 some position not exact or the commit
 * refused, 2 bad usage.
 */
@Command(name = "translate", sortOptions = false,
        description = "a consumer group's committed positions on one site, translated exactly for the other site"
                + " through the destination's offset map (docs/failover.md)",
        footer = {"", "Exit code 0 when every position is exact (and committed when asked), 1 otherwise,"
                + " 2 for a bad option."})
final class OffsetsTranslateCommand implements Callable<Integer> {

    private final PrintStream out;

    @Spec
    private CommandSpec spec;

    @Option(names = "--group", paramLabel = "G", required = true, description = "the consumer group")
    private String group;

    @Option(names = "--topic", paramLabel = "T", required = true,
            description = "the topic's name at the origin (its replica's name is in the map)")
    private String topic;

    @Option(names = "--direction", paramLabel = "D", required = true,
            description = "to-destination: positions committed at the origin, translated for the replica at the"
                    + " destination (failover); to-origin: positions committed on the replica, translated for the"
                    + " origin topic (failback)")
    private String direction;

    @Option(names = "--origin-bootstrap", paramLabel = "S", required = true,
            description = "the origin (source) cluster, HOST:PORT")
    private String originBootstrap;

    @Option(names = "--destination-bootstrap", paramLabel = "S", required = true,
            description = "the destination cluster, HOST:PORT, which holds the offset map")
    private String destinationBootstrap;

    @Option(names = "--source-alias", paramLabel = "A", required = true,
            description = "the destination-site connector's source.cluster.alias")
    private String sourceAlias;

    @Option(names = "--map-topic", paramLabel = "M", defaultValue = "jetstream-offset-map.internal",
            description = "the connector's offset.map.topic (default ${DEFAULT-VALUE})")
    private String mapTopic;

    @Option(names = "--origin-config", paramLabel = "FILE",
            description = "client properties for the origin (security.protocol, ssl.*, sasl.*)")
    private Path originConfig;

    @Option(names = "--destination-config", paramLabel = "FILE",
            description = "client properties for the destination")
    private Path destinationConfig;

    @Option(names = "--commit",
            description = "commit the translated positions on the other side (refused while the group has active"
                    + " members there, or when a position is not exact)")
    private boolean commit;

    @Option(names = "--timeout-s", paramLabel = "S", defaultValue = "60",
            description = "longest wait for each cluster call and the map read (default ${DEFAULT-VALUE})")
    private long timeoutS;

    @Mixin
    private HelpOption help;

    OffsetsTranslateCommand(PrintStream out) {
        this.out = out;
    }

    /** Parsed and checked options. */
    record Options(String group, String topic, Direction direction, String originBootstrap,
                   String destinationBootstrap, String sourceAlias, String mapTopic, Path originConfig,
                   Path destinationConfig, boolean commit, Duration timeout) {
    }

    /** The options given on the command line; a bad {@code --direction} or {@code --timeout-s} fails naming it. */
    Options options() {
        CommandLine cli = spec.commandLine();
        String toward = requireOneOf(cli, "--direction", direction, "to-destination", "to-origin");
        requireWithin(cli, "--timeout-s", timeoutS, 1, 3_600);
        return new Options(group, topic, "to-destination".equals(toward) ? Direction.TO_DESTINATION
                : Direction.TO_ORIGIN, originBootstrap, destinationBootstrap, sourceAlias, mapTopic, originConfig,
                destinationConfig, commit, Duration.ofSeconds(timeoutS));
    }

    @Override
    public Integer call() throws Exception {
        Options options = options();
        Map<String, Object> origin = clientProps(options.originBootstrap(), options.originConfig());
        Map<String, Object> destination = clientProps(options.destinationBootstrap(), options.destinationConfig());
        Map<TopicPartition, OffsetTranslator> map = OffsetMapReader.read(destination, options.mapTopic(),
                p -> p.sourceAlias().equals(options.sourceAlias()) && p.topic().equals(options.topic()),
                options.timeout());
        boolean toDestination = options.direction() == Direction.TO_DESTINATION;
        List<Row> rows;
        Uuid originTopicId;
        try (Admin originAdmin = Admin.create(origin)) {
            // The origin topic's incarnation now: positions translate only through its own entries.
            originTopicId = GroupOffsetTranslation.originTopicId(originAdmin, options.topic(), options.timeout());
            if (toDestination) {
                rows = GroupOffsetTranslation.translate(originAdmin, originTopicId, options.group(), options.topic(),
                        map, options.direction(), options.timeout());
            } else {
                try (Admin from = Admin.create(destination)) {
                    rows = GroupOffsetTranslation.translate(from, originTopicId, options.group(), options.topic(),
                            map, options.direction(), options.timeout());
                }
            }
        }
        out.printf("%-10s %-30s %14s  %-30s %14s  %s%n", "PARTITION", "FROM TOPIC", "POSITION", "TO TOPIC",
                "POSITION", "STATUS");
        for (Row row : rows) {
            out.printf("%-10d %-30s %14d  %-30s %14s  %s%n", row.partition(), row.fromTopic(), row.fromOffset(),
                    row.toTopic(), row.translation().offset() < 0 ? "-" : Long.toString(row.translation().offset()),
                    row.translation().status());
        }
        boolean otherIncarnation = rows.stream()
                .anyMatch(row -> row.translation().status() == OffsetTranslator.Status.OTHER_INCARNATION);
        if (otherIncarnation) {
            Uuid mapped = map.values().stream().map(OffsetTranslator::topicId)
                    .filter(id -> !originTopicId.equals(id)).findFirst().orElse(Uuid.ZERO_UUID);
            out.println("OTHER_INCARNATION: " + GroupOffsetTranslation.otherIncarnation(options.topic(), originTopicId,
                    mapped) + ". Wait until the new topic is replicated with the offset map on, or reset the group"
                    + " by time (docs/failover.md).");
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
