package io.jetstream.kafka.transport;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.channel.Channel;

/**
 * A {@link TransportErrorListener} that counts rejected input by kind. Thread-safe: one instance may
 * serve every connection of a process.
 */
public final class TransportErrorCounter implements TransportErrorListener {

    private final Map<ProtocolException.Kind, LongAdder> counts = new EnumMap<>(ProtocolException.Kind.class);

    public TransportErrorCounter() {
        for (ProtocolException.Kind kind : ProtocolException.Kind.values()) {
            counts.put(kind, new LongAdder());
        }
    }

    @Override
    public void onProtocolError(Channel channel, ProtocolException error) {
        counts.get(error.kind()).increment();
    }

    /** Errors of one kind so far. */
    public long count(ProtocolException.Kind kind) {
        return counts.get(kind).sum();
    }

    /** Errors of every kind so far. */
    public long total() {
        long total = 0;
        for (LongAdder count : counts.values()) {
            total += count.sum();
        }
        return total;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("TransportErrorCounter[");
        counts.forEach((kind, count) -> {
            long n = count.sum();
            if (n > 0) {
                out.append(kind).append('=').append(n).append(' ');
            }
        });
        return out.append(']').toString();
    }
}
