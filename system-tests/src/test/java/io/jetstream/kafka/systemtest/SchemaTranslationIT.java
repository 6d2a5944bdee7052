package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.schema.RegisteredSchema;
import io.jetstream.kafka.schema.RegistryClientSettings;
import io.jetstream.kafka.schema.RestSchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryException;
import io.jetstream.kafka.schema.WireFormat;
import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.link.LinkSpec;
import io.jetstream.kafka.testkit.registry.ApicurioRegistry;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.JmxReader;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema-aware replication against real registries, one per site (Apicurio Registry processes):
 * Avro produced at A with ids from registry A is consumed at B through registry B with every value
 * equal; the schema evolves mid-stream; an incompatible schema stops its partition with a clear
 * error until registry B takes it; registry B unreachable for 30 s loses nothing and writes
 * nothing with a wrong id; JSON Schema, unknown ids and plain bytes pass untouched. Registry B sits
 * behind a link the test cuts; registry B's ids are offset from A's, so an untranslated id shows.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchemaTranslationIT {

    private static final Schema V1 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\","
            + "\"type\":\"string\"}]}");
    private static final Schema V2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\","
            + "\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\",\"default\":1}]}");
    private static final Schema V3 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\","
            + "\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\",\"default\":1},{\"name\":\"note\","
            + "\"type\":\"string\",\"default\":\"\"}]}");
    /** Not readable as a successor of V3 (a new field without a default): BACKWARD refuses it. */
    private static final Schema BREAKING = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\","
            + "\"type\":\"string\"},{\"name\":\"warehouse\",\"type\":\"string\"}]}");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ApicurioRegistry registryA;
    private static ApicurioRegistry registryB;
    private static LinkEmulator toRegistryB;
    private static ReplicationEnvironment env;
    private static RestSchemaRegistryClient clientA;
    private static RestSchemaRegistryClient clientB;
    private static KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    static void start() throws Exception {
        Path home = ApicurioRegistry.home(SiteFiles.projectRoot().resolve("system-tests/target/apicurio-registry"));
        // the registries start after the sites, not beside them: on a loaded 2-core machine three
        // JVMs starting at once each take minutes
        env = ReplicationEnvironment.builder(workDir).withoutConnectors().start();
        CompletableFuture<ApicurioRegistry> a = CompletableFuture.supplyAsync(() -> registry("registry-a", home));
        CompletableFuture<ApicurioRegistry> b = CompletableFuture.supplyAsync(() -> registry("registry-b", home));
        registryA = a.get(5, TimeUnit.MINUTES);
        registryB = b.get(5, TimeUnit.MINUTES);
        toRegistryB = new LinkEmulator(LinkSpec.unlimited("to-registry-b"),
                new InetSocketAddress("127.0.0.1", registryB.port()));
        InetSocketAddress link = toRegistryB.start();
        clientA = new RestSchemaRegistryClient(RegistryClientSettings.of(URI.create(registryA.url())));
        clientB = new RestSchemaRegistryClient(RegistryClientSettings.of(URI.create(registryB.url())));
        // registry B's ids start elsewhere than A's, so that an id written untranslated cannot pass
        for (int i = 0; i < 5; i++) {
            clientB.register("unrelated-value", RegisteredSchema.avro("{\"type\":\"fixed\",\"name\":\"U" + i
                    + "\",\"size\":" + (i + 1) + "}"));
        }
        env.deploySource(Map.of("topics.regex", "demo\\..*", "schema.translation.enabled", "true",
                "schema.registry.url", registryA.url(), "retry.backoff.ms", "200"));
        env.deploySink(Map.of("schema.translation.enabled", "true",
                "schema.registry.url", "http://127.0.0.1:" + link.getPort() + ApicurioRegistry.CCOMPAT_PATH,
                "schema.registry.connect.timeout.ms", "2000"));
        env.awaitConnectorsRunning(Duration.ofSeconds(90));
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                env.siteA().bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ApicurioRegistry registry(String name, Path home) {
        try {
            return ApicurioRegistry.start(name, home, workDir, Duration.ofMinutes(5));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start " + name + ": " + e, e);
        }
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close();
        }
        if (env != null) {
            env.close();
        }
        if (toRegistryB != null) {
            toRegistryB.close();
        }
        for (ApicurioRegistry registry : new ApicurioRegistry[] {registryA, registryB}) {
            if (registry != null) {
                registry.close();
            }
        }
    }

    @Test
    @Order(1)
    void avroValuesArriveEqualWithRegistryBsIdsThroughTheEvolutionOfTheirSchema() throws Exception {
        String topic = "demo.orders";
        env.siteA().createTopic(topic, 2);
        int v1 = register(topic, V1);
        int v2 = register(topic, V2);
        Map<String, String> expected = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            boolean evolved = i >= 150; // the schema evolves mid-stream, in every partition
            GenericRecord order = new GenericData.Record(evolved ? V2 : V1);
            order.put("id", (long) i);
            order.put("item", "item-" + i);
            if (evolved) {
                order.put("qty", i % 7);
            }
            expected.put("k" + i, order.toString());
            send(topic, "k" + i, WireFormat.frame(evolved ? v2 : v1, avro(order)));
        }
        producer.flush();

        Map<String, ConsumerRecord<byte[], byte[]>> atB = consume("A." + topic, expected.size());
        Map<Integer, Integer> idsAtB = new HashMap<>();
        atB.forEach((key, record) -> {
            int id = WireFormat.schemaId(record.value());
            assertThat(decodeAtB(record.value())).as("value of %s decoded through registry B", key)
                    .isEqualTo(expected.get(key));
            idsAtB.merge(id, 1, Integer::sum);
        });
        assertThat(idsAtB).as("two schemas, each under one id of registry B").hasSize(2)
                .doesNotContainKeys(v1, v2);
        assertThat(subjectVersions("A." + topic + "-value")).as("both versions, registered in order").hasSize(2);
    }

    @Test
    @Order(2)
    void jsonSchemaUnknownIdsAndPlainBytesPassUntouched() throws Exception {
        String topic = "demo.mixed";
        env.siteA().createTopic(topic, 1);
        int json = clientA.register(topic + "-value", new RegisteredSchema("JSON",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}", 0));
        Map<String, byte[]> sent = new LinkedHashMap<>();
        sent.put("json", WireFormat.frame(json, "{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
        sent.put("unknown-id", WireFormat.frame(987_654, new byte[] {1, 2, 3}));
        sent.put("plain", "just text".getBytes(StandardCharsets.UTF_8));
        sent.put("short", new byte[] {0, 1});
        sent.forEach((key, value) -> send(topic, key, value));
        producer.flush();

        Map<String, ConsumerRecord<byte[], byte[]>> atB = consume("A." + topic, sent.size());
        sent.forEach((key, value) -> assertThat(atB.get(key).value()).as(key).isEqualTo(value));
    }

    @Test
    @Order(3)
    void registryBUnreachableFor30SecondsLosesNothingAndWritesNoWrongId() throws Exception {
        String topic = "demo.outage";
        env.siteA().createTopic(topic, 2);
        int v1 = register(topic, V1);
        Map<String, String> expected = new LinkedHashMap<>();
        sendOrders(topic, V1, v1, 0, 50, expected);
        consume("A." + topic, 50);

        toRegistryB.cut();
        long cutAt = System.nanoTime();
        int v3 = register(topic, V3); // a schema registry B has not seen under this subject
        sendOrders(topic, V3, v3, 50, 150, expected);
        sendOrders(topic, V1, v1, 150, 200, expected);
        producer.flush();
        double failuresBefore = sinkMetric("schema-registry-failures-total");
        await("the destination task failing to reach registry B").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> sinkMetric("schema-registry-failures-total") > failuresBefore);
        assertThat(countAtB("A." + topic)).as("the new schema's records and all after them wait; nothing passed "
                + "untranslated").isEqualTo(50);
        // the outage lasts 30 s, during which the batches keep being refused and sent again
        await("30 s of registry outage, the destination retrying")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> System.nanoTime() - cutAt >= Duration.ofSeconds(30).toNanos()
                        && sinkMetric("schema-registry-failures-total") > failuresBefore + 2);
        assertThat(countAtB("A." + topic)).isEqualTo(50);
        toRegistryB.restore();

        Map<String, ConsumerRecord<byte[], byte[]>> atB = consume("A." + topic, expected.size());
        atB.forEach((key, record) -> assertThat(decodeAtB(record.value())).as(key).isEqualTo(expected.get(key)));
        assertThat(countAtB("A." + topic)).as("nothing duplicated").isEqualTo(expected.size());
    }

    @Test
    @Order(4)
    void anIncompatibleSchemaStopsItsPartitionWithAClearErrorUntilRegistryBTakesIt() throws Exception {
        String topic = "demo.breaking";
        env.siteA().createTopic(topic, 1);
        int v3 = register(topic, V3);
        Map<String, String> expected = new LinkedHashMap<>();
        sendOrders(topic, V3, v3, 0, 20, expected);
        consume("A." + topic, 20);
        http(registryB, "PUT", "/config/A." + topic + "-value", "{\"compatibility\":\"BACKWARD\"}");
        int breaking = register(topic, BREAKING);
        GenericRecord odd = new GenericData.Record(BREAKING);
        odd.put("id", 20L);
        odd.put("item", "item-20");
        odd.put("warehouse", "north");
        expected.put("k20", odd.toString());
        send(topic, "k20", WireFormat.frame(breaking, avro(odd)));
        sendOrders(topic, V3, v3, 21, 30, expected);
        producer.flush();

        double incompatibleBefore = sinkMetric("schema-incompatible-total");
        await("registry B refusing the breaking schema").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> sinkMetric("schema-incompatible-total") > incompatibleBefore);
        assertThat(sinkMetric("schema-held-partitions")).isEqualTo(1.0);
        await("the error naming the subject in worker B's log").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> env.siteB().requireWorker().process().problems(400)
                        .contains("is incompatible with subject A." + topic + "-value"));
        assertThat(countAtB("A." + topic)).as("nothing after the breaking record is written").isEqualTo(20);

        // the operator decides: the destination subject takes any schema
        http(registryB, "PUT", "/config/A." + topic + "-value", "{\"compatibility\":\"NONE\"}");
        Map<String, ConsumerRecord<byte[], byte[]>> atB = consume("A." + topic, expected.size());
        atB.forEach((key, record) -> assertThat(decodeAtB(record.value())).as(key).isEqualTo(expected.get(key)));
    }

    // --- helpers -------------------------------------------------------------------------------

    /** A destination connector metric summed over its tasks, over JMX from worker B. */
    private static double sinkMetric(String name) throws Exception {
        return JmxReader.sum(env.siteB().requireWorker().process().pid(), "kafka.connect:type=plugins,connector="
                + ReplicationEnvironment.SINK_CONNECTOR + ",*", name);
    }

    private static int register(String topic, Schema schema) throws SchemaRegistryException {
        return clientA.register(topic + "-value", RegisteredSchema.avro(schema.toString()));
    }

    private static void sendOrders(String topic, Schema schema, int id, int from, int to, Map<String, String> expected) {
        for (int i = from; i < to; i++) {
            GenericRecord order = new GenericData.Record(schema);
            for (Schema.Field field : schema.getFields()) {
                order.put(field.name(), switch (field.name()) {
                    case "id" -> (long) i;
                    case "qty" -> i;
                    default -> field.name() + "-" + i;
                });
            }
            expected.put("k" + i, order.toString());
            send(topic, "k" + i, WireFormat.frame(id, avro(order)));
        }
    }

    private static void send(String topic, String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value));
    }

    private static byte[] avro(GenericRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What a consumer at B with an Avro deserializer pointed at registry B reads: the writer schema by id. */
    private static String decodeAtB(byte[] value) {
        int id = WireFormat.schemaId(value);
        assertThat(id).as("in the wire format").isNotEqualTo(WireFormat.NONE);
        try {
            Schema writer = new Schema.Parser().parse(clientB.schemaById(id).schema());
            GenericRecord record = new GenericDatumReader<GenericRecord>(writer).read(null,
                    DecoderFactory.get().binaryDecoder(value, WireFormat.HEADER_BYTES,
                            value.length - WireFormat.HEADER_BYTES, null));
            return record.toString();
        } catch (SchemaRegistryException | IOException e) {
            throw new AssertionError("id " + id + " does not decode through registry B: " + e, e);
        }
    }

    /** Reads the topic at B (read_committed) until {@code count} distinct keys arrived; by key. */
    private static Map<String, ConsumerRecord<byte[], byte[]>> consume(String topic, int count) throws Exception {
        Map<String, ConsumerRecord<byte[], byte[]>> out = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            consumer.subscribe(List.of(topic));
            await(count + " records of " + topic + " at B").atMost(Duration.ofSeconds(120)).pollInSameThread()
                    .ignoreExceptions()
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                            out.put(new String(record.key(), StandardCharsets.UTF_8), record);
                        }
                        return out.size() >= count;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + " (" + out.size() + " arrived)\n" + env.diagnostics(), e);
        }
        return out;
    }

    private static long countAtB(String topic) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(all::add);
            }
        }
        return all.size();
    }

    private static KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, env.siteB().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "check-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<?> subjectVersions(String subject) throws Exception {
        String body = http(registryB, "GET", "/subjects/" + subject + "/versions", null);
        return List.of(body.replaceAll("[\\[\\]\\s]", "").split(","));
    }

    private static String http(ApicurioRegistry registry, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registry.url() + path))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isBetween(200, 299);
        return response.body();
    }
}
