package io.jetstream.kafka.relay.datapath;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The subscriptions of each stream at this relay (as an egress). Read on every delivered batch,
 * written on subscribe and disconnect: copy-on-write lists. Thread-safe.
 *
 * <p>A batch of {@code topic}-{@code partition} goes to the first subscription whose share owns it
 * ({@code Shares.owns} with that subscription's own share count, so tasks that subscribed with
 * different counts during a rescale are each asked about their own split). Of two subscriptions
 * for the same share (index and count) the one with the higher epoch (the task instance started
 * later) holds it; at equal epochs the later subscription does. The caller closes the loser.
 */
final class Subscribers {

    /** The outcome of {@link #register}: the link registered (replacing one, or none), or refused. */
    record Registration(SubscriberLink replaced, SubscriberLink holder) {
        /** Whether the new link was refused because {@link #holder} is newer. */
        boolean refused() {
            return holder != null;
        }
    }

    private final ConcurrentHashMap<String, CopyOnWriteArrayList<SubscriberLink>> byStream = new ConcurrentHashMap<>();

    /**
     * Registers {@code link} unless a subscription of the same share with a higher epoch holds it;
     * a registered link replaces the older subscription of its share, if any.
     */
    Registration register(String streamId, SubscriberLink link) {
        CopyOnWriteArrayList<SubscriberLink> links = byStream.computeIfAbsent(streamId,
                s -> new CopyOnWriteArrayList<>());
        synchronized (links) {
            SubscriberLink existing = null;
            for (SubscriberLink candidate : links) {
                if (candidate.sameShare(link)) {
                    existing = candidate;
                    break;
                }
            }
            if (existing != null && existing.subscription().epoch() > link.subscription().epoch()) {
                return new Registration(null, existing);
            }
            if (existing != null) {
                links.remove(existing);
            }
            links.add(link);
            return new Registration(existing, null);
        }
    }

    void remove(String streamId, SubscriberLink link) {
        CopyOnWriteArrayList<SubscriberLink> links = byStream.get(streamId);
        if (links != null) {
            links.remove(link);
        }
    }

    /** The subscription owning the partition, or null. */
    SubscriberLink owner(String streamId, String topic, int partition) {
        CopyOnWriteArrayList<SubscriberLink> links = byStream.get(streamId);
        if (links == null) {
            return null;
        }
        for (SubscriberLink link : links) {
            if (link.owns(topic, partition)) {
                return link;
            }
        }
        return null;
    }

    List<SubscriberLink> all(String streamId) {
        CopyOnWriteArrayList<SubscriberLink> links = byStream.get(streamId);
        return links == null ? List.of() : List.copyOf(links);
    }
}
