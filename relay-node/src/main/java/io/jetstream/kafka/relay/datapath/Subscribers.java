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
 * different counts during a rescale are each asked about their own split). A new subscription for
 * the same share (index and count) replaces the older one: the older connection stays open but
 * receives nothing new.
 */
final class Subscribers {

    private final ConcurrentHashMap<String, CopyOnWriteArrayList<SubscriberLink>> byStream = new ConcurrentHashMap<>();

    /** Registers {@code link}; returns the subscription it replaced, or null. */
    SubscriberLink register(String streamId, SubscriberLink link) {
        CopyOnWriteArrayList<SubscriberLink> links = byStream.computeIfAbsent(streamId,
                s -> new CopyOnWriteArrayList<>());
        synchronized (links) {
            SubscriberLink replaced = null;
            for (SubscriberLink existing : links) {
                if (existing.sameShare(link)) {
                    replaced = existing;
                    links.remove(existing);
                    break;
                }
            }
            links.add(link);
            return replaced;
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
