package io.jetstream.kafka.core.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Describes an origin topic so the sink site can create or align the destination topic. Routed
 * like a batch (same routing header, same hop handling) and acknowledged by an {@link AckFrame}
 * whose batch id is the metadata id (drawn from the sender's batch id sequence) with partition and
 * lastOffset -1.
 *
 * @param routing routing; {@code routing.id()} is the metadata id
 * @param topic origin topic
 * @param partitionCount partitions of the origin topic, {@code >= 1}
 * @param configs topic configs to replicate (for example {@code cleanup.policy}), at most 65535,
 *     copied into a sorted immutable map
 * @param mac the source-site connector's MAC over everything here but the routing path and hop, or
 *     {@link FrameMac#NONE}; relays carry it unchanged
 */
public record TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs,
        FrameMac mac) implements Frame {

    /** Most config entries one frame carries. */
    public static final int MAX_CONFIGS = 0xFFFF;

    public TopicMetadataFrame {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(mac, "mac");
        WireStrings.checkNotEmpty(topic, "topic");
        if (partitionCount < 1) {
            throw new IllegalArgumentException("partitionCount " + partitionCount + " must be >= 1");
        }
        if (configs.size() > MAX_CONFIGS) {
            throw new IllegalArgumentException(configs.size() + " configs exceed the maximum of " + MAX_CONFIGS);
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        configs.forEach((k, v) -> sorted.put(WireStrings.check(k, "config key"), WireStrings.check(v, "config " + k)));
        configs = Collections.unmodifiableMap(sorted);
    }

    /** Metadata without a MAC. */
    public TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs) {
        this(routing, topic, partitionCount, configs, FrameMac.NONE);
    }

    public long metadataId() {
        return routing.id();
    }

    /** The same metadata (and MAC) under new routing. */
    public TopicMetadataFrame withRouting(RoutingHeader newRouting) {
        return new TopicMetadataFrame(newRouting, topic, partitionCount, configs, mac);
    }

    /** The same metadata with another MAC. */
    public TopicMetadataFrame withMac(FrameMac newMac) {
        return new TopicMetadataFrame(routing, topic, partitionCount, configs, newMac);
    }

    @Override
    public FrameType type() {
        return FrameType.TOPIC_METADATA;
    }
}
