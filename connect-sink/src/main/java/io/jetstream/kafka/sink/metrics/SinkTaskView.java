package io.jetstream.kafka.sink.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The view of one destination-site task ({@code TaskView}, read by {@code GET /jetstream/tasks} and
 * {@code ./jetstream explain}): its mode, what it wrote and when it last stored progress, when it
 * last heard from the source (a batch or an end-to-end heartbeat), the
 * recent replication latency, and what it holds (buffered bytes, exactly-once commits awaiting
 * stability). Member names are documented in docs/monitoring.md.
 *
 * <p>Thread-safety: read on the worker's REST threads; everything it reads is thread-safe.
 */
public final class SinkTaskView {

    private final String sourceAlias;
    private final String targetAlias;
    private final boolean exactlyOnce;
    private final SinkActivity activity;
    /** Seconds since the newest word (batch or end-to-end heartbeat) from the source. */
    private final DoubleSupplier heartbeatAgeSeconds;
    private final LongSupplier bufferedBytes;
    /** Exactly-once commits whose records are not yet readable; null in at-least-once mode. */
    private final LongSupplier awaitingStability;

    public SinkTaskView(String sourceAlias, String targetAlias, boolean exactlyOnce, SinkActivity activity,
                 DoubleSupplier heartbeatAgeSeconds, LongSupplier bufferedBytes, LongSupplier awaitingStability) {
        this.sourceAlias = sourceAlias;
        this.targetAlias = targetAlias;
        this.exactlyOnce = exactlyOnce;
        this.activity = activity;
        this.heartbeatAgeSeconds = heartbeatAgeSeconds;
        this.bufferedBytes = bufferedBytes;
        this.awaitingStability = awaitingStability;
    }

    public Map<String, Object> view() {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("role", "destination-site");
        view.put("source_alias", sourceAlias);
        view.put("target_alias", targetAlias);
        view.put("delivery", exactlyOnce ? "exactly-once" : "at-least-once");
        view.put("activity", activity.view(System.currentTimeMillis()));
        view.put("heartbeat_age_seconds", heartbeatAgeSeconds.getAsDouble());
        Map<String, Object> pending = new LinkedHashMap<>();
        pending.put("buffered_bytes", bufferedBytes.getAsLong());
        pending.put("commits_awaiting_stability", awaitingStability == null ? null : awaitingStability.getAsLong());
        view.put("pending", pending);
        return view;
    }
}
