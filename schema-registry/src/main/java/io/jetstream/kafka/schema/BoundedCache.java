package io.jetstream.kafka.schema;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/** A thread-safe map holding at most {@code capacity} entries, the least recently used leaving first. */
final class BoundedCache<K, V> {

    private final LinkedHashMap<K, V> map;

    BoundedCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " < 1");
        }
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized V get(K key) {
        return map.get(key);
    }

    /** Puts and returns the previous value. */
    synchronized V put(K key, V value) {
        return map.put(key, value);
    }

    synchronized int size() {
        return map.size();
    }

    synchronized void forEach(BiConsumer<K, V> action) {
        map.forEach(action);
    }
}
