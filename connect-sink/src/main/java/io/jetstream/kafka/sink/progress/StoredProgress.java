package io.jetstream.kafka.sink.progress;

import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * Progress as Connect stores it: the source offset of the last record written per origin partition,
 * with the incarnation (origin topic id) it belongs to ({@link SourceOffsets}), read from Connect's
 * offset store within a bound ({@link BoundedReads}), never waiting on a broker outage for long.
 * Closed with the task.
 */
public final class StoredProgress implements ReplicationReceiver.ProgressStore, AutoCloseable {

    /**
     * Longest wait for one read of the stored progress (Connect's reader has no limit of its own):
     * well below the worker's graceful stop timeout, so a stop is never held up by a broker outage;
     * {@code cluster.call.timeout.ms} lowers it further when set below it.
     */
    static final Duration PROGRESS_READ_TIMEOUT = Duration.ofSeconds(3);

    private final String sourceAlias;
    private final Supplier<OffsetStorageReader> reader;
    private final BoundedReads reads;

    /** @param reader Connect's offset store reader, asked for at each read (the task's context has it) */
    public StoredProgress(String nodeId, String sourceAlias, Duration clusterCallTimeout,
                          Supplier<OffsetStorageReader> reader) {
        this.sourceAlias = sourceAlias;
        this.reader = reader;
        this.reads = new BoundedReads("jetstream-progress-" + nodeId, progressReadTimeout(clusterCallTimeout));
    }

    @Override
    public ReplicationReceiver.Progress progress(String originTopic, int partition) {
        return SourceOffsets.progressOf(storedOffset(new TopicPartition(originTopic, partition)));
    }

    @Override
    public Map<TopicPartition, ReplicationReceiver.Progress> progress(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Map<String, Object>> keys = new HashMap<>();
        for (TopicPartition tp : partitions) {
            keys.put(tp, SourceOffsets.sourcePartition(sourceAlias, tp.topic(), tp.partition()));
        }
        Map<Map<String, Object>, Map<String, Object>> offsets = reads.read(
                "stored progress of " + partitions.size() + " partition(s)",
                () -> reader.get().offsets(keys.values()));
        Map<TopicPartition, ReplicationReceiver.Progress> out = new HashMap<>();
        keys.forEach((tp, key) -> out.put(tp, SourceOffsets.progressOf(offsets.get(key))));
        return out;
    }

    /** The stored source offset of an origin partition, read within {@link #progressReadTimeout}. */
    public Map<String, Object> storedOffset(TopicPartition origin) {
        return reads.read("stored progress of " + origin,
                () -> reader.get().offset(SourceOffsets.sourcePartition(sourceAlias, origin.topic(), origin.partition())));
    }

    /** How long one read of the stored progress may take: the fixed cap, or the configured call bound if lower. */
    static Duration progressReadTimeout(Duration clusterCallTimeout) {
        return clusterCallTimeout.compareTo(PROGRESS_READ_TIMEOUT) < 0 ? clusterCallTimeout : PROGRESS_READ_TIMEOUT;
    }

    @Override
    public void close() {
        reads.close();
    }
}
