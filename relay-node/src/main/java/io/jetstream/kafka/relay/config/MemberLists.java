package io.jetstream.kafka.relay.config;

import static io.jetstream.kafka.relay.config.RelayConfig.CONFIG_PROVIDERS;
import static io.jetstream.kafka.relay.config.RelayConfig.DESTINATIONS;
import static io.jetstream.kafka.relay.config.RelayConfig.STREAMS;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Fills in the member lists that a nested YAML file implies.
 *
 * <p>Like Kafka Connect's {@code transforms} / {@code transforms.<alias>.type}, a list key names
 * the members and each member has its own keys: {@code streams: demo} with
 * {@code streams.demo.token}. In YAML the natural way to write that is a map,
 * <pre>
 * streams:
 *   demo:
 *     token: ...
 * </pre>
 * which flattens to {@code streams.demo.token} and no {@code streams} key at all. When a list key
 * is absent, this class derives it from the member keys, in order of first appearance. When it is
 * present it wins, and member keys of unlisted members are reported as unknown keys later.
 *
 * <p>A member written with no keys ({@code demo:} or {@code demo: {}}) flattens to the marker
 * {@code streams.demo = ""}; the marker declares the member and is then removed.
 */
final class MemberLists {

    private MemberLists() {
    }

    /**
     * A copy of {@code flat} with {@code streams}, {@code destinations}, each destination's routes
     * and {@code config.providers} filled in.
     */
    static Map<String, String> complete(Map<String, String> flat) {
        Map<String, String> props = new LinkedHashMap<>(flat);
        imply(props, CONFIG_PROVIDERS);
        imply(props, STREAMS);
        Set<String> destinations = imply(props, DESTINATIONS);
        for (String destination : destinations) {
            imply(props, RelayConfigDef.routesKey(destination));
        }
        return props;
    }

    /**
     * Adds {@code listKey = m1,m2,...} if absent, from keys {@code listKey.<member>[.more]}, and
     * removes empty member markers. Returns the members found under the prefix (listed or not).
     */
    private static Set<String> imply(Map<String, String> props, String listKey) {
        String prefix = listKey + ".";
        Set<String> members = new LinkedHashSet<>();
        Set<String> markers = new LinkedHashSet<>();
        for (Map.Entry<String, String> entry : props.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith(prefix) || key.length() == prefix.length()) {
                continue;
            }
            int end = key.indexOf('.', prefix.length());
            String member = end < 0 ? key.substring(prefix.length()) : key.substring(prefix.length(), end);
            members.add(member);
            boolean emptyMarker = end < 0 && entry.getValue().isEmpty();
            if (emptyMarker) {
                markers.add(key);
            }
        }
        markers.forEach(props::remove);
        if (!props.containsKey(listKey) && !members.isEmpty()) {
            props.put(listKey, String.join(",", members));
        }
        return members;
    }
}
