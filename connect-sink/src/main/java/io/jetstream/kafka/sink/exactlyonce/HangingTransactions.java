package io.jetstream.kafka.sink.exactlyonce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once: finds and aborts the hanging transactions of this connector's tasks in the
 * destination cluster, as {@code kafka-transactions.sh find-hanging} and {@code abort} do (KIP-664),
 * one {@link #round()} at a time.
 *
 * <p>A destination broker crashed or stopped while tasks commit can come back with a transaction
 * still open on a partition (a destination topic, or the worker's offsets topic) that its coordinator
 * no longer knows (seen with Kafka 4.3.1). Nothing ever completes it: the partition's last stable
 * offset stays behind it, read_committed consumers see nothing past it, and exactly-once tasks hang
 * in start-up reading the offsets topic.
 *
 * <p>An open transaction is aborted only when all of these hold:
 * <ul>
 *   <li><b>ours</b>: its producer's transactional id is one of this connector's task producers,
 *   {@code <worker group.id>-<connector name>-<task>} ({@code Worker.taskTransactionalId} in Kafka
 *   Connect), matched through the coordinators' list of transactional ids by producer id, where
 *   {@code <worker group.id>} is a Kafka Connect group of this cluster. Other producers' transactions
 *   are never touched, and one no coordinator attributes is left alone;</li>
 *   <li><b>not live</b>: its coordinator has no ongoing transaction at that producer epoch that
 *   includes that partition;</li>
 *   <li><b>old</b>: the producer last wrote to the partition longer ago than the coordinator's
 *   transaction timeout plus {@link #AGE_MARGIN} (a live transaction ends within its timeout; with
 *   transactions v2 the epoch moves on at each end, so a live one can look "not ongoing at that
 *   epoch" for a moment, and age is what tells them apart);</li>
 *   <li><b>seen hanging long enough</b>: every round for at least {@code observeFor}
 *   ({@code exactly.once.stable.timeout.ms} plus a margin) saw it open and not live, its partition
 *   answering each time. A task whose committed records the transaction holds fails after
 *   {@code exactly.once.stable.timeout.ms} of unchanged, readable stable offsets without
 *   acknowledging them ({@link StableCommits}); an abort moves the stable offset past records it
 *   deleted, which that task must not take for a commit. A round that cannot look resets the
 *   count.</li>
 * </ul>
 * Every abort is logged at WARN; a failed abort is logged and tried again next round.
 *
 * <p>Threads: one caller at a time (the connector's {@link HangingTransactionAborter} thread).
 */
public final class HangingTransactions {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactions.class);
    /** Beyond the coordinator's transaction timeout, before an open transaction counts as old. */
    static final Duration AGE_MARGIN = Duration.ofSeconds(10);

    /** The destination cluster as a round sees it: Admin calls, each bounded by {@code cluster.call.timeout.ms}. */
    interface Cluster {
        /** Every partition of the cluster, internal topics included (Connect's offsets topic among them). */
        List<TopicPartition> partitions() throws Exception;

        /** The active producers of each partition that answered; a partition that did not is absent. */
        Map<TopicPartition, List<ProducerState>> producers(List<TopicPartition> partitions) throws Exception;

        /** The transactional id of each producer id the coordinators know. */
        Map<Long, String> transactionalIds() throws Exception;

        /** Group ids of the Kafka Connect clusters whose group is on this cluster. */
        Set<String> connectGroups() throws Exception;

        /** What the coordinators hold for these transactional ids; ids they could not describe are absent. */
        Map<String, TransactionDescription> describe(Collection<String> transactionalIds) throws Exception;

        void abort(AbortTransactionSpec spec) throws Exception;
    }

    /** One aborted transaction, for the log and the caller. */
    public record Aborted(TopicPartition partition, String transactionalId, long producerId, int producerEpoch,
                   long startOffset, String coordinator) {
        @Override
        public String toString() {
            return partition + ": transaction of " + transactionalId + " (producer " + producerId + ", epoch "
                    + producerEpoch + ") from offset " + startOffset + "; the coordinator has " + coordinator;
        }
    }

    /** An open transaction on a partition, as describeProducers shows it. */
    private record Key(TopicPartition partition, long producerId, int producerEpoch, long startOffset) {
    }

    private final Cluster cluster;
    private final Pattern ownTransactionalIds;
    private final Duration observeFor;
    private final LongSupplier wallClockMillis;
    /** Since when (wall clock ms) a round has seen it not live, every round since; whether it was logged. */
    private static final class Watch {
        final long since;
        boolean reported;

        Watch(long since) {
            this.since = since;
        }
    }

    /** Open transactions of ours seen not live in every round since their watch began. */
    private final Map<Key, Watch> hangingSince = new HashMap<>();
    /** Whether the last round saw every partition and every open transaction of ours, and none hanging. */
    private boolean settled;
    /** Whether the current look saw every partition's producers and every coordinator it asked. */
    private boolean lookComplete;

    /**
     * @param observeFor      how long a transaction must be seen hanging before it is aborted
     * @param wallClockMillis the time in the brokers' clock (producers' last write times are theirs)
     */
    public HangingTransactions(Cluster cluster, String connectorName, Duration observeFor, LongSupplier wallClockMillis) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.ownTransactionalIds = Pattern.compile("(.+)-" + Pattern.quote(connectorName) + "-(\\d+)");
        this.observeFor = observeFor;
        this.wallClockMillis = wallClockMillis;
    }

    /**
     * Looks once and aborts what the rules allow. A failed look is logged and forgets what earlier
     * rounds saw (hanging must be seen without a break); the next round tries again.
     *
     * @return the transactions aborted in this round
     */
    List<Aborted> round() {
        return round(Duration.ZERO);
    }

    /**
     * As {@link #round()}, with a transaction seen hanging for {@code extraObserve} longer than the
     * configured time before it is aborted (a check without a running connector instance defers to one
     * that may run on another worker, which restarts its tasks after its aborts).
     */
    List<Aborted> round(Duration extraObserve) {
        long observeMs = observeFor.plus(extraObserve).toMillis();
        List<Candidate> candidates;
        settled = false;
        lookComplete = true;
        try {
            candidates = look();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopping
            hangingSince.clear();
            return List.of();
        } catch (Exception e) {
            hangingSince.clear();
            log.warn("Could not look for hanging transactions in the destination cluster; trying again next round: {}",
                    e.toString());
            return List.of();
        }
        long now = wallClockMillis.getAsLong();
        Set<Key> stillHanging = new HashSet<>();
        List<Aborted> aborted = new ArrayList<>();
        for (Candidate candidate : candidates) {
            ProducerState producer = candidate.producer();
            TransactionDescription coordinator = candidate.coordinator();
            boolean ongoingThere = coordinator.state() == TransactionState.ONGOING
                    && coordinator.producerEpoch() == producer.producerEpoch()
                    && coordinator.topicPartitions().contains(candidate.partition());
            if (ongoingThere) {
                continue; // live
            }
            Key key = new Key(candidate.partition(), producer.producerId(), producer.producerEpoch(),
                    producer.currentTransactionStartOffset().getAsLong());
            stillHanging.add(key);
            Watch watch = hangingSince.computeIfAbsent(key, k -> new Watch(now));
            boolean old = now - producer.lastTimestamp() > coordinator.transactionTimeoutMs() + AGE_MARGIN.toMillis();
            boolean seenLongEnough = now - watch.since >= observeMs;
            if (old && !watch.reported) {
                // only now: with transactions v2 a live transaction often looks "not the coordinator's"
                watch.reported = true;
                log.info("{}: open transaction of {} (producer {}, epoch {}) from offset {}, last written {} ms ago, "
                                + "is not the coordinator's ({}): hanging; aborted once seen so for {} ms",
                        key.partition(), candidate.transactionalId(), key.producerId(), key.producerEpoch(),
                        key.startOffset(), now - producer.lastTimestamp(), coordinatorState(coordinator),
                        observeMs);
            }
            if (old && seenLongEnough) {
                abort(candidate, key, now - watch.since).ifPresent(aborted::add);
            }
        }
        hangingSince.keySet().retainAll(stillHanging);
        aborted.forEach(a -> hangingSince.remove(new Key(a.partition(), a.producerId(), a.producerEpoch(),
                a.startOffset())));
        settled = lookComplete && stillHanging.isEmpty();
        return aborted;
    }

    /** Transactions seen hanging and not yet aborted (for tests and logs). */
    int watched() {
        return hangingSince.size();
    }

    /**
     * Whether the last round could look at every partition and at the coordinator of every open
     * transaction of ours, and found none of them hanging (live ones aside): nothing of this connector's
     * tasks is left to abort, as far as the cluster shows now.
     */
    boolean settled() {
        return settled;
    }

    /** An open transaction of one of this connector's task producers, with what its coordinator has. */
    private record Candidate(TopicPartition partition, ProducerState producer, String transactionalId,
                             TransactionDescription coordinator) {
    }

    /** The open transactions of ours, each with its coordinator's description. */
    private List<Candidate> look() throws Exception {
        List<TopicPartition> partitions = cluster.partitions();
        Map<TopicPartition, List<ProducerState>> producers = cluster.producers(partitions);
        lookComplete = producers.keySet().containsAll(partitions);
        Map<TopicPartition, List<ProducerState>> open = new HashMap<>();
        producers.forEach((partition, states) -> states.stream()
                .filter(p -> p.currentTransactionStartOffset().isPresent())
                .forEach(p -> open.computeIfAbsent(partition, tp -> new ArrayList<>()).add(p)));
        if (open.isEmpty()) {
            return List.of();
        }
        Map<Long, String> transactionalIds = cluster.transactionalIds();
        Set<String> groups = cluster.connectGroups();
        Set<String> ours = new TreeSet<>();
        open.values().forEach(states -> states.forEach(p -> {
            String id = transactionalIds.get(p.producerId());
            if (id != null && ownedByThisConnector(id, groups)) {
                ours.add(id);
            }
        }));
        if (ours.isEmpty()) {
            return List.of();
        }
        Map<String, TransactionDescription> coordinators = cluster.describe(ours);
        lookComplete &= coordinators.keySet().containsAll(ours);
        List<Candidate> candidates = new ArrayList<>();
        open.forEach((partition, states) -> states.forEach(p -> {
            String id = transactionalIds.get(p.producerId());
            TransactionDescription coordinator = id == null ? null : coordinators.get(id);
            if (id != null && ours.contains(id) && coordinator != null) {
                candidates.add(new Candidate(partition, p, id, coordinator));
            }
        }));
        return candidates;
    }

    /** {@code <group>-<connector>-<task>} with {@code <group>} a Connect group of this cluster. */
    boolean ownedByThisConnector(String transactionalId, Set<String> connectGroups) {
        Matcher matcher = ownTransactionalIds.matcher(transactionalId);
        return matcher.matches() && connectGroups.contains(matcher.group(1));
    }

    private Optional<Aborted> abort(Candidate candidate, Key key, long seenForMs) {
        ProducerState producer = candidate.producer();
        AbortTransactionSpec spec = new AbortTransactionSpec(key.partition(), producer.producerId(),
                (short) producer.producerEpoch(), producer.coordinatorEpoch().orElse(0));
        Aborted aborted = new Aborted(key.partition(), candidate.transactionalId(), producer.producerId(),
                producer.producerEpoch(), key.startOffset(), coordinatorState(candidate.coordinator()));
        try {
            cluster.abort(spec);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopping: the transaction may or may not be aborted
            return Optional.empty();
        } catch (Exception e) {
            log.warn("Could not abort the hanging transaction {}; trying again next round: {}", aborted, e.toString());
            return Optional.empty();
        }
        log.warn("Aborted a hanging transaction in the destination cluster: {}. Last write {} ms ago, seen hanging "
                        + "for {} ms. Records of it that Connect had reported committed were never acknowledged to the "
                        + "source, which sends them again to the task instances that resume from the stored progress.",
                aborted, wallClockMillis.getAsLong() - producer.lastTimestamp(), seenForMs);
        return Optional.of(aborted);
    }

    private static String coordinatorState(TransactionDescription coordinator) {
        return coordinator.state() + " at epoch " + coordinator.producerEpoch() + " (timeout "
                + coordinator.transactionTimeoutMs() + " ms)";
    }
}
