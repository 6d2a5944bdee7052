package io.jetstream.kafka.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A registry in memory for unit tests: ids from {@code firstId}, subjects refusing chosen schemas, outages. */
final class InMemoryRegistry implements SchemaRegistryClient {

    final Map<Integer, RegisteredSchema> byId = new HashMap<>();
    final Map<String, List<Integer>> subjects = new HashMap<>();
    final Set<String> refusedSchemas = ConcurrentHashMap.newKeySet();
    final List<String> calls = new ArrayList<>();
    volatile boolean down;
    private int nextId;

    InMemoryRegistry(int firstId) {
        this.nextId = firstId;
    }

    @Override
    public synchronized RegisteredSchema schemaById(int id) throws SchemaRegistryException {
        calls.add("GET " + id);
        checkUp();
        RegisteredSchema schema = byId.get(id);
        if (schema == null) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.NOT_FOUND, 404, "no schema " + id);
        }
        return schema;
    }

    @Override
    public synchronized int register(String subject, RegisteredSchema schema) throws SchemaRegistryException {
        calls.add("POST " + subject);
        checkUp();
        if (refusedSchemas.contains(schema.schema())) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.INCOMPATIBLE, 409, "incompatible");
        }
        for (Map.Entry<Integer, RegisteredSchema> e : byId.entrySet()) {
            if (e.getValue().equals(schema)) {
                subjects.computeIfAbsent(subject, s -> new ArrayList<>()).add(e.getKey());
                return e.getKey();
            }
        }
        int id = nextId++;
        byId.put(id, schema);
        subjects.computeIfAbsent(subject, s -> new ArrayList<>()).add(id);
        return id;
    }

    private void checkUp() throws SchemaRegistryException {
        if (down) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, 0, "connection refused");
        }
    }
}
