package io.jetstream.kafka.core.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Describes an origin topic so the destination site can create or align the destination topic. Routed
 * like a batch (same routing header, same hop handling) and acknowledged by an {@link AckFrame}
 * whose batch id is the metadata id (drawn from the sender's batch id sequence) with partition and
 * lastOffset -1.
 *
 * @param routing routing; {@code routing.id()} is the metadata id
 * @param topic origin topic
 * @param partitionCount partitions of the origin topic, {@code >= 1}
 * @param configs topic configs to replicate (for example {@code cleanup.policy}), at most 65535,
 *     copied into a sorted immutable map: the origin's overrides, complete (a key absent here is not
 *     overridden at the origin)
 * @param topicId the origin topic's id (its incarnation), {@link Uuid#ZERO_UUID} when unknown
 * @param generation when the origin described the topic, in milliseconds since the epoch of the
 *     source-site connector's clock, strictly increasing per publisher ({@code >= 0}): of two
 *     descriptions of one topic the destination applies only the later, whatever route or order
 *     they arrive by (protocol version 2)
 * @param mac the source-site connector's MAC over everything here but the routing path and hop, or
 *     {@link FrameMac#NONE}; relays carry it unchanged
 */
public record TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs,
        Uuid topicId, long generation, FrameMac mac) implements Frame {

    /** Most config entries one frame carries. */
    public static final int MAX_CONFIGS = 0xFFFF;

    public TopicMetadataFrame {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(mac, "mac");
        Objects.requireNonNull(topicId, "topicId");
        if (generation < 0) {
            throw new IllegalArgumentException("generation " + generation + " must be >= 0");
        }
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
    public TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs,
                              Uuid topicId, long generation) {
        this(routing, topic, partitionCount, configs, topicId, generation, FrameMac.NONE);
    }

    /** Metadata without a MAC, of an unknown incarnation, generation 0 (older than any described). */
    public TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs) {
        this(routing, topic, partitionCount, configs, Uuid.ZERO_UUID, 0, FrameMac.NONE);
    }

    /** Metadata of an unknown incarnation, generation 0 (older than any described), with a MAC. */
    public TopicMetadataFrame(RoutingHeader routing, String topic, int partitionCount, Map<String, String> configs,
                              FrameMac mac) {
        this(routing, topic, partitionCount, configs, Uuid.ZERO_UUID, 0, mac);
    }

    public long metadataId() {
        return routing.id();
    }

    /** The same metadata (and MAC) under new routing. */
    public TopicMetadataFrame withRouting(RoutingHeader newRouting) {
        return new TopicMetadataFrame(newRouting, topic, partitionCount, configs, topicId, generation, mac);
    }

    /** The same metadata with other configs (and the same MAC, which then no longer matches them). */
    public TopicMetadataFrame withConfigs(Map<String, String> newConfigs) {
        return new TopicMetadataFrame(routing, topic, partitionCount, newConfigs, topicId, generation, mac);
    }

    /** The same metadata with another MAC. */
    public TopicMetadataFrame withMac(FrameMac newMac) {
        return new TopicMetadataFrame(routing, topic, partitionCount, configs, topicId, generation, newMac);
    }

    @Override
    public FrameType type() {
        return FrameType.TOPIC_METADATA;
    }
}
