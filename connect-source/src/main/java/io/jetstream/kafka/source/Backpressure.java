package io.jetstream.kafka.source;

import io.jetstream.kafka.source.sender.ReplicationSender;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pauses every assigned partition while the sender holds {@code max.in.flight.bytes}
 * ({@link ReplicationSender#shouldPause()}), and resumes them once it drained to half
 * ({@link ReplicationSender#canResume()}); a partition assigned while paused is paused at once.
 * Connect keeps calling {@code put} with nothing meanwhile, which drives the timers.
 *
 * <p>Task thread, except {@link #paused()} and {@link #assignedCount()}, which gauges and the
 * task's view read from any thread.
 */
final class Backpressure {

    private static final Logger log = LoggerFactory.getLogger(Backpressure.class);

    private final SinkTaskContext context;
    private final ReplicationSender sender;
    private final Set<TopicPartition> assigned = new HashSet<>();
    private volatile boolean paused;

    Backpressure(SinkTaskContext context, ReplicationSender sender) {
        this.context = context;
        this.sender = sender;
    }

    void assign(Collection<TopicPartition> partitions) {
        assigned.addAll(partitions);
        if (paused) {
            context.pause(partitions.toArray(new TopicPartition[0]));
        }
    }

    void revoke(Collection<TopicPartition> partitions) {
        assigned.removeAll(partitions);
    }

    /** After each {@code put}: pauses or resumes the assigned partitions as the sender's memory asks. */
    void apply() {
        if (!paused && sender.shouldPause()) {
            paused = true;
            context.pause(assigned.toArray(new TopicPartition[0]));
            log.debug("Paused {} partitions: {} bytes buffered", assigned.size(), sender.bufferedBytes());
        } else if (paused && sender.canResume()) {
            paused = false;
            context.resume(assigned.toArray(new TopicPartition[0]));
        }
    }

    boolean paused() {
        return paused;
    }

    int assignedCount() {
        return assigned.size();
    }
}
