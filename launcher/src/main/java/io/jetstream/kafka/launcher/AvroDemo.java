package io.jetstream.kafka.launcher;

import io.jetstream.kafka.schema.RegisteredSchema;
import io.jetstream.kafka.schema.RegistryClientSettings;
import io.jetstream.kafka.schema.RestSchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryException;
import io.jetstream.kafka.schema.WireFormat;
import io.jetstream.kafka.testkit.registry.ApicurioRegistry;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code ./jetstream demo --avro}: the demo's two sites, each with its own schema registry (Apicurio
 * Registry processes). Avro orders are produced at A with registry A's ids, the schema evolving
 * half-way; both connectors translate; at B every value is decoded through registry B and compared
 * with what was produced. Registry B holds other schemas first, so its ids differ from A's, and
 * the demo shows both. Exits 1 unless every value arrived once, in order, equal.
 */
final class AvroDemo {

    private static final String TOPIC = "demo.orders";
    private static final int PARTITIONS = 6;
    private static final Schema V1 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"item\",\"type\":\"string\"},{\"name\":\"price\",\"type\":\"double\"}]}");
    private static final Schema V2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"item\",\"type\":\"string\"},{\"name\":\"price\",\"type\":\"double\"},"
            + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}]}");

    private AvroDemo() {
    }

    static int run(DemoOptions options, Path baseDir, PrintStream out) throws Exception {
        Path home = ApicurioRegistry.home(SiteFiles.projectRoot().resolve("system-tests/target/apicurio-registry"));
        out.println("Starting sites A and B, a schema registry for each (Apicurio, " + home + "), relays and WAN "
                + "links ...");
        long startNanos = System.nanoTime();
        ReplicationEnvironment.Builder builder = ReplicationEnvironment.builder(baseDir)
                .routes(options.routes())
                .linkRate(options.linkRate())
                .oneWayDelay(options.oneWayDelay())
                .exactlyOnce(true)
                .withoutConnectors();
        try (ReplicationEnvironment env = builder.start()) {
            // the registries start once the sites are up: on 2 cores, everything at once starves the brokers
            CompletableFuture<ApicurioRegistry> startA = CompletableFuture.supplyAsync(() -> registry("registry-a",
                    home, baseDir));
            CompletableFuture<ApicurioRegistry> startB = CompletableFuture.supplyAsync(() -> registry("registry-b",
                    home, baseDir));
            try (ApicurioRegistry registryA = startA.get(5, TimeUnit.MINUTES);
                 ApicurioRegistry registryB = startB.get(5, TimeUnit.MINUTES)) {
                return run(options, env, registryA, registryB, startNanos, out);
            }
        }
    }

    private static int run(DemoOptions options, ReplicationEnvironment env, ApicurioRegistry registryA,
                           ApicurioRegistry registryB, long startNanos, PrintStream out) throws Exception {
        RestSchemaRegistryClient clientA = new RestSchemaRegistryClient(RegistryClientSettings.of(
                URI.create(registryA.url())));
        RestSchemaRegistryClient clientB = new RestSchemaRegistryClient(RegistryClientSettings.of(
                URI.create(registryB.url())));
        for (int i = 0; i < 3; i++) { // registry B already serves other schemas: its ids differ from A's
            clientB.register("inventory-value", RegisteredSchema.avro("{\"type\":\"fixed\",\"name\":\"Sku" + i
                    + "\",\"size\":" + (8 + i) + "}"));
        }
        env.siteA().createTopic(TOPIC, PARTITIONS);
        env.deploySink(Map.of("schema.translation.enabled", "true", "schema.registry.url", registryB.url()));
        env.deploySource(Map.of("schema.translation.enabled", "true", "schema.registry.url", registryA.url()));
        env.awaitConnectorsRunning(Duration.ofSeconds(120));
        out.printf("Up in %.1f s. Registry A %s, registry B %s; connectors deployed with "
                + "schema.translation.enabled=true%n", (System.nanoTime() - startNanos) / 1e9, registryA.url(),
                registryB.url());
        int v1 = clientA.register(TOPIC + "-value", RegisteredSchema.avro(V1.toString()));
        int v2 = clientA.register(TOPIC + "-value", RegisteredSchema.avro(V2.toString()));
        int events = options.events();
        out.printf("Producing %,d Avro orders at A: the first half with schema v1 (id %d at A), the rest with "
                + "v2 (id %d at A)%n", events, v1, v2);
        Map<String, String> expected = produce(env.siteA().bootstrapServers(), events, v1, v2);
        Check check = consume(env.siteB().bootstrapServers(), "A." + TOPIC, expected, clientB, options.timeout(),
                out);
        out.printf("Schema ids: at A %d, %d (subject %s-value); at B %s (subject A.%s-value)%n", v1, v2, TOPIC,
                check.idsAtB, TOPIC);
        String result = String.format(Locale.ROOT, "RESULT events=%d delivered=%d lost=%d duplicates=%d order=%s "
                + "values_equal=%d ids_a=%d,%d ids_b=%s", events, check.distinct, events - check.distinct,
                check.duplicates, check.orderOk ? "ok" : "violated", check.equal, v1, v2,
                String.join(",", check.idsAtB.stream().map(String::valueOf).toList()));
        out.println(result);
        boolean idsDiffer = !check.idsAtB.contains(v1) && !check.idsAtB.contains(v2);
        return check.distinct == events && check.duplicates == 0 && check.orderOk && check.equal == events
                && idsDiffer ? 0 : 1;
    }

    private static ApicurioRegistry registry(String name, Path home, Path baseDir) {
        try {
            return ApicurioRegistry.start(name, home, baseDir, Duration.ofMinutes(4));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start " + name + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, String> produce(String bootstrap, int events, int v1, int v2) {
        Map<String, String> expected = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, "5"),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < events; i++) {
                boolean evolved = i >= events / 2;
                GenericRecord order = new GenericData.Record(evolved ? V2 : V1);
                order.put("id", (long) i);
                order.put("item", "item-" + (i % 97));
                order.put("price", (i % 1000) / 10.0);
                if (evolved) {
                    order.put("currency", i % 2 == 0 ? "EUR" : "USD");
                }
                String key = Integer.toString(i);
                expected.put(key, order.toString());
                producer.send(new ProducerRecord<>(TOPIC, key.getBytes(StandardCharsets.UTF_8),
                        WireFormat.frame(evolved ? v2 : v1, avro(order))));
            }
        }
        return expected;
    }

    private static byte[] avro(GenericRecord record) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the consumer at B found. */
    private static final class Check {
        long distinct;
        long duplicates;
        long equal;
        boolean orderOk = true;
        final TreeSet<Integer> idsAtB = new TreeSet<>();
    }

    /** Reads the replica at B, decoding each value with the writer schema registry B gives for its id. */
    private static Check consume(String bootstrap, String topic, Map<String, String> expected,
                                 RestSchemaRegistryClient registryB, Duration timeout, PrintStream out)
            throws SchemaRegistryException, IOException {
        Check check = new Check();
        Map<Integer, Schema> schemas = new HashMap<>();
        Map<String, Boolean> seen = new HashMap<>();
        Map<Integer, Long> lastKeyPerPartition = new TreeMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        long lastReport = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG,
                "avro-demo-" + System.nanoTime(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(java.util.List.of(topic));
            while (check.distinct < expected.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    if (seen.put(key, true) != null) {
                        check.duplicates++;
                        continue;
                    }
                    check.distinct++;
                    Long previous = lastKeyPerPartition.put(record.partition(), Long.parseLong(key));
                    if (previous != null && previous > Long.parseLong(key)) {
                        check.orderOk = false;
                    }
                    int id = WireFormat.schemaId(record.value());
                    check.idsAtB.add(id);
                    Schema writer = schemas.get(id);
                    if (writer == null) {
                        writer = new Schema.Parser().parse(registryB.schemaById(id).schema());
                        schemas.put(id, writer);
                    }
                    GenericRecord value = new GenericDatumReader<GenericRecord>(writer).read(null,
                            DecoderFactory.get().binaryDecoder(record.value(), WireFormat.HEADER_BYTES,
                                    record.value().length - WireFormat.HEADER_BYTES, null));
                    if (value.toString().equals(expected.get(key))) {
                        check.equal++;
                    }
                }
                if (System.nanoTime() - lastReport > 2_000_000_000L) {
                    lastReport = System.nanoTime();
                    out.printf("  at B: %,d of %,d orders, %,d decoded equal through registry B%n", check.distinct,
                            expected.size(), check.equal);
                }
            }
        }
        return check;
    }
}
