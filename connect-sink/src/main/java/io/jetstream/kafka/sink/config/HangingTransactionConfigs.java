package io.jetstream.kafka.sink.config;

import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The destination-site connector's key for finding and aborting its own hanging transactions
 * ({@link io.jetstream.kafka.sink.exactlyonce.HangingTransactions}, exactly-once only).
 */
public final class HangingTransactionConfigs {

    public static final String CHECK_INTERVAL_MS = "exactly.once.hanging.check.interval.ms";
    static final long DEFAULT_CHECK_INTERVAL_MS = 15_000L;

    private static final String GROUP = "Delivery";

    private HangingTransactionConfigs() {
    }

    static ConfigDef define(ConfigDef def) {
        return def.define(CHECK_INTERVAL_MS, Type.LONG, DEFAULT_CHECK_INTERVAL_MS,
                ConfigDef.Range.between(1_000L, 3_600_000L), Importance.LOW,
                "Exactly-once only. How often the connector (one thread per connector, not per task) looks "
                        + "for hanging transactions of its own tasks in the destination cluster: transactions "
                        + "still open on a partition (destination topics or Connect's offsets topic) that their "
                        + "coordinator no longer knows, which a destination broker crash or stop can leave "
                        + "behind. It aborts one once it is older than its transaction timeout plus 10 s and "
                        + "has been seen hanging for exactly.once.stable.timeout.ms plus 10 s (by then every task "
                        + "whose records it holds has failed without acknowledging them), then has Connect restart "
                        + "the tasks. The looks go on after the connector stops in a worker (a hanging "
                        + "transaction on the offsets topic keeps Connect from starting it again) until one finds "
                        + "nothing hanging, 30 minutes at most, aborting two intervals later than a running "
                        + "instance would, and its next instance there takes them over. "
                        + "Other producers' transactions are never touched. Each look costs a few "
                        + "Admin calls (partitions, producers per broker, transactions), each bounded by "
                        + "cluster.call.timeout.ms.",
                GROUP, 20, Width.SHORT, "Hanging transaction check interval (ms)");
    }

    public static Duration checkInterval(AbstractConfig config) {
        return Duration.ofMillis(config.getLong(CHECK_INTERVAL_MS));
    }
}
