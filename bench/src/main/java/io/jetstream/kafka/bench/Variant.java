package io.jetstream.kafka.bench;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One contender of the WAN benchmark: JetStream with a number of routes, or MirrorMaker 2 with a
 * placement and a tuning. Every variant replicates its own topic over the same links with the same
 * workload.
 *
 * @param id          short name used on the command line ({@code --variants}), in the JSON and the report
 * @param title       one line for tables
 * @param kind        which replicator
 * @param routes      JetStream: WAN routes of the ingress relay (1: direct; 3: direct, via a2, via a3)
 * @param compression JetStream: the source connector's {@code compression.type}, or empty for the shipped
 *                    default of {@code config/source-connector.json}
 * @param mm2         MirrorMaker 2: placement and tuning; empty for JetStream
 * @param backlogShare share of the plan's backlog this variant drains (slow variants drain less so that
 *                    a full run stays within its time budget; rates are per second either way)
 * @param atLeastOnce JetStream: the destination at-least-once (its Connect worker without exactly-once
 *                    support, the connector at {@code exactly.once.support=requested}), MirrorMaker 2's
 *                    default guarantee, for comparisons at equal guarantees; false: the shipped
 *                    exactly-once. Always false for MirrorMaker 2 (see {@link Mm2Setup#exactlyOnce})
 * @param sourceProps JetStream: keys set on the source-site connector on top of the shipped file (e.g. the
 *                    batching of the varying-rate sweep); the bench's {@code --source-prop} still wins
 */
public record Variant(String id, String title, Kind kind, int routes, Optional<String> compression,
                      Optional<Mm2Setup> mm2, double backlogShare, boolean atLeastOnce,
                      java.util.Map<String, String> sourceProps) {

    /** Which replicator a variant runs. */
    public enum Kind { JETSTREAM, MIRRORMAKER2 }

    /**
     * How MirrorMaker 2 runs: on which hosts its Connect workers sit, which Kafka cluster they
     * belong to (and so where records are produced from), and whether the connector is tuned.
     *
     * @param workerHosts hosts with one Connect worker each (one Connect group)
     * @param atSource    true: workers at the source site with bootstrap.servers = broker B, so the
     *                    producer compresses before the WAN; false: workers at the destination
     * @param tuned       the benchmark's tuning ({@link Mm2Configs}) instead of the connector defaults
     * @param tasks       tasks.max
     * @param exactlyOnce exactly-once delivery (KIP-618: workers with {@code exactly.once.source.support}
     *                    enabled, the connector with {@code exactly.once.support=required}), the
     *                    guarantee JetStream gives by default; else MM2's default, at-least-once
     * @param tunedForPartitions the partition count the tuning was chosen for, kept whatever the run's topic has
     *                    (an operator who tuned once, on the default cell); 0: the tuning follows the run's
     *                    partition count ({@link Mm2Configs#tuning(int)})
     */
    public record Mm2Setup(List<String> workerHosts, boolean atSource, boolean tuned, int tasks,
                           boolean exactlyOnce, int tunedForPartitions) {
        public Mm2Setup {
            workerHosts = List.copyOf(workerHosts);
            if (workerHosts.isEmpty()) {
                throw new IllegalArgumentException("MirrorMaker 2 needs at least one worker host");
            }
            if (tunedForPartitions < 0) {
                throw new IllegalArgumentException("tunedForPartitions must be >= 0, was " + tunedForPartitions);
            }
        }

        /** Tuned for the run's partition count. */
        public Mm2Setup(List<String> workerHosts, boolean atSource, boolean tuned, int tasks, boolean exactlyOnce) {
            this(workerHosts, atSource, tuned, tasks, exactlyOnce, 0);
        }

        /** The partition count the connector's tuning is chosen for when the run's topic has {@code partitions}. */
        public int tuningPartitions(int partitions) {
            return tunedForPartitions > 0 ? tunedForPartitions : partitions;
        }

        /** At-least-once, MM2's default. */
        public Mm2Setup(List<String> workerHosts, boolean atSource, boolean tuned, int tasks) {
            this(workerHosts, atSource, tuned, tasks, false);
        }

        /**
         * The Connect group the workers form: one per placement and delivery guarantee (a worker's
         * exactly-once support is a worker setting), so that variants can share workers.
         */
        public String group() {
            return (atSource ? "mm2-src" : "mm2-dst") + (exactlyOnce ? "-eos" : "");
        }
    }

    public Variant {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(mm2, "mm2");
        sourceProps = java.util.Map.copyOf(sourceProps);
        if (!sourceProps.isEmpty() && kind != Kind.JETSTREAM) {
            throw new IllegalArgumentException("variant " + id + ": source-site connector keys are JetStream's");
        }
        if (kind == Kind.MIRRORMAKER2 && mm2.isEmpty()) {
            throw new IllegalArgumentException("variant " + id + ": MirrorMaker 2 needs its setup");
        }
        if (atLeastOnce && kind != Kind.JETSTREAM) {
            throw new IllegalArgumentException("variant " + id + ": MirrorMaker 2's guarantee is set by its setup");
        }
        if (backlogShare <= 0 || backlogShare > 1) {
            throw new IllegalArgumentException("variant " + id + ": backlogShare must be in (0, 1], was "
                    + backlogShare);
        }
    }

    public boolean isJetStream() {
        return kind == Kind.JETSTREAM;
    }

    static Variant jetStream(String id, String title, int routes, String compression) {
        return new Variant(id, title, Kind.JETSTREAM, routes, Optional.ofNullable(compression), Optional.empty(), 1.0,
                false, java.util.Map.of());
    }

    /**
     * JetStream with one route and no relay at the source site: the source-site connector connects over
     * the WAN straight to the egress relay, which routes to itself ({@code hops: [local]}). Marked by
     * {@code routes() == 0}: no relay hop before the egress.
     */
    static Variant jetStreamDirect(String id, String title) {
        return new Variant(id, title, Kind.JETSTREAM, 0, Optional.empty(), Optional.empty(), 1.0, false,
                java.util.Map.of());
    }

    /** Whether the source-site connector connects straight to the egress relay (no ingress relay). */
    public boolean direct() {
        return kind == Kind.JETSTREAM && routes == 0;
    }

    /** JetStream with the destination at-least-once, as MirrorMaker 2 runs by default. */
    static Variant jetStreamAtLeastOnce(String id, String title, int routes) {
        return new Variant(id, title, Kind.JETSTREAM, routes, Optional.empty(), Optional.empty(), 1.0, true,
                java.util.Map.of());
    }

    /** JetStream, one route, with these keys on its source-site connector (the batching sweep). */
    static Variant jetStreamWith(String id, String title, java.util.Map<String, String> sourceProps) {
        return new Variant(id, title, Kind.JETSTREAM, 1, Optional.empty(), Optional.empty(), 1.0, false, sourceProps);
    }

    /** JetStream with {@code routes} routes and these keys on its source-site connector. */
    static Variant jetStreamWith(String id, String title, int routes, java.util.Map<String, String> sourceProps) {
        return new Variant(id, title, Kind.JETSTREAM, routes, Optional.empty(), Optional.empty(), 1.0, false,
                sourceProps);
    }

    static Variant mirrorMaker(String id, String title, Mm2Setup setup, double backlogShare) {
        return new Variant(id, title, Kind.MIRRORMAKER2, 0, Optional.empty(), Optional.of(setup), backlogShare,
                false, java.util.Map.of());
    }
}
