package io.jetstream.kafka.relay.datapath;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.jetstream.kafka.core.protocol.SubscribeFrame;

/**
 * The subscriptions of each stream at this relay (as an egress), and the one rule of who holds which
 * partitions. Read on every delivered batch, written on subscribe and disconnect: copy-on-write
 * lists. Thread-safe.
 *
 * <p>Invariant: every subscription of a stream has the same share count and a share index of its
 * own, so each partition has exactly one owner ({@code Shares.owns}). A new subscription conflicts
 * with those of the same share and, when its share count differs (a rescale of the destination-site
 * connector, or someone with the subscriber token), with every subscription of the stream. It takes
 * their place when its epoch (when the subscribing task instance started) is at least each of
 * theirs, so a newer task instance, and the new tasks of a rescale, replace what they succeed; it is
 * refused when one of them is newer, so a left-over instance cannot take a share back. The caller
 * tells the losers (refused or replaced) why. An epoch more than {@code subscribe.epoch.max.ahead.ms}
 * ahead of this relay's clock is refused: it would otherwise hold the share against every task
 * started before that time.
 */
final class Subscribers {

    /** What became of a subscription. */
    enum Outcome {
        /** Registered, in the place of {@link Registration#replaced()} (possibly none). */
        REGISTERED,
        /** Refused: {@link Registration#holder()} is newer and holds partitions it asked for. */
        HELD,
        /** Refused: its epoch is from the future of this relay's clock. */
        EPOCH_AHEAD
    }

    /**
     * The outcome of {@link #register}.
     *
     * @param replaced     the subscriptions it took the place of (REGISTERED)
     * @param holder       the newer subscription that refused it (HELD)
     * @param aheadMillis  how far its epoch is ahead of this relay's clock (EPOCH_AHEAD)
     */
    record Registration(Outcome outcome, List<SubscriberLink> replaced, SubscriberLink holder, long aheadMillis) {
    }

    private final Clock wallClock;
    private final long maxAheadMillis;
    private final ConcurrentHashMap<String, CopyOnWriteArrayList<SubscriberLink>> byStream = new ConcurrentHashMap<>();

    /**
     * @param wallClock the relay's wall clock, to which subscription epochs (epoch milliseconds) compare
     * @param maxAhead  how far ahead of it an epoch may be ({@code subscribe.epoch.max.ahead.ms})
     */
    Subscribers(Clock wallClock, Duration maxAhead) {
        this.wallClock = wallClock;
        this.maxAheadMillis = maxAhead.toMillis();
    }

    /** Registers {@code link} unless its epoch is from the future or a newer conflicting subscription holds on. */
    Registration register(String streamId, SubscriberLink link) {
        SubscribeFrame subscription = link.subscription();
        long ahead = subscription.epoch() - wallClock.millis();
        if (ahead > maxAheadMillis) {
            return new Registration(Outcome.EPOCH_AHEAD, List.of(), null, ahead);
        }
        CopyOnWriteArrayList<SubscriberLink> links = byStream.computeIfAbsent(streamId,
                s -> new CopyOnWriteArrayList<>());
        synchronized (links) {
            List<SubscriberLink> conflicting = new ArrayList<>();
            for (SubscriberLink candidate : links) {
                boolean otherSplit = candidate.subscription().shareCount() != subscription.shareCount();
                if (otherSplit || candidate.sameShare(link)) {
                    if (candidate.subscription().epoch() > subscription.epoch()) {
                        return new Registration(Outcome.HELD, List.of(), candidate, 0);
                    }
                    conflicting.add(candidate);
                }
            }
            links.removeAll(conflicting);
            links.add(link);
            return new Registration(Outcome.REGISTERED, List.copyOf(conflicting), null, 0);
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
