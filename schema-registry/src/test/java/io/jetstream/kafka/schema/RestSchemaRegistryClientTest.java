package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against a JDK HTTP server on loopback answering as the Confluent REST API does. */
class RestSchemaRegistryClientTest {

    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String answer = "{}";

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath());
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "" : authorization);
        bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        byte[] out = answer.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    private URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/apis/ccompat/v7");
    }

    private RestSchemaRegistryClient client(Optional<String> basic, Optional<String> bearer, URI... urls) {
        return new RestSchemaRegistryClient(new RegistryClientSettings(List.of(urls), basic, bearer, Optional.empty(),
                Duration.ofSeconds(2), Duration.ofSeconds(5), 100));
    }

    @Test
    void fetchesASchemaByIdOnce() throws Exception {
        answer = "{\"schema\":\"{\\\"type\\\":\\\"string\\\"}\"}";
        RestSchemaRegistryClient client = client(Optional.empty(), Optional.empty(), base());

        RegisteredSchema schema = client.schemaById(7);
        assertThat(client.schemaById(7)).isEqualTo(schema);

        assertThat(schema).isEqualTo(RegisteredSchema.avro("{\"type\":\"string\"}"));
        assertThat(requests).containsExactly("GET /apis/ccompat/v7/schemas/ids/7");
    }

    @Test
    void readsTheTypeAndReferencesOfOtherSchemas() throws Exception {
        answer = "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\";\",\"references\":[{\"name\":\"x\","
                + "\"subject\":\"y\",\"version\":1}]}";
        RegisteredSchema schema = client(Optional.empty(), Optional.empty(), base()).schemaById(8);
        assertThat(schema.type()).isEqualTo("PROTOBUF");
        assertThat(schema.references()).isEqualTo(1);
        assertThat(schema.isAvro()).isFalse();
    }

    @Test
    void registersUnderAnEncodedSubjectAndCachesTheId() throws Exception {
        answer = "{\"id\":42}";
        RestSchemaRegistryClient client = client(Optional.empty(), Optional.empty(), base());
        RegisteredSchema schema = RegisteredSchema.avro("{\"type\":\"string\"}");

        assertThat(client.register("A.orders value", schema)).isEqualTo(42);
        assertThat(client.register("A.orders value", schema)).isEqualTo(42);
        assertThat(client.schemaById(42)).as("known from the registration").isEqualTo(schema);

        assertThat(requests).containsExactly("POST /apis/ccompat/v7/subjects/A.orders+value/versions");
        assertThat(bodies.get(0)).isEqualTo("{\"schema\":\"{\\\"type\\\":\\\"string\\\"}\"}");
    }

    @Test
    void sendsBasicOrBearerCredentials() throws Exception {
        answer = "{\"schema\":\"\\\"int\\\"\"}";
        client(Optional.of("alice:s3cret"), Optional.empty(), base()).schemaById(1);
        client(Optional.empty(), Optional.of("tok.en"), base()).schemaById(1);
        assertThat(authorizations).containsExactly("Basic YWxpY2U6czNjcmV0", "Bearer tok.en");
    }

    @Test
    void classifiesRefusalsByStatus() {
        RestSchemaRegistryClient client = client(Optional.empty(), Optional.empty(), base());
        status = 409;
        answer = "{\"error_code\":409,\"message\":\"Schema being registered is incompatible\"}";
        assertThatThrownBy(() -> client.register("s", RegisteredSchema.avro("\"int\"")))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.kind()).isEqualTo(SchemaRegistryException.Kind.INCOMPATIBLE);
                    assertThat(e.getMessage()).contains("HTTP 409", "(error 409) Schema being registered is incompatible");
                });
        answer = "{\"error_code\":409,\"message\":\"An artifact with ID 's' in group 'null' already exists.\"}";
        assertThatThrownBy(() -> client.register("s", RegisteredSchema.avro("\"long\"")))
                .as("Apicurio's answer to a registration racing another: retried, not incompatible")
                .extracting(e -> ((SchemaRegistryException) e).kind()).isEqualTo(SchemaRegistryException.Kind.UNAVAILABLE);
        status = 404;
        assertThatThrownBy(() -> client.schemaById(5)).extracting(e -> ((SchemaRegistryException) e).kind())
                .isEqualTo(SchemaRegistryException.Kind.NOT_FOUND);
        status = 503;
        answer = "down for maintenance";
        assertThatThrownBy(() -> client.schemaById(5)).isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
            assertThat(e.kind().retriable()).isTrue();
            assertThat(e.getMessage()).contains("down for maintenance");
        });
        assertThat(client.failures()).isEqualTo(4);
    }

    @Test
    void anUnreachableRegistryIsUnavailableAndTheNextUrlIsTried() throws Exception {
        URI closed;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
        assertThatThrownBy(() -> client(Optional.empty(), Optional.empty(), closed).schemaById(1))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.kind()).isEqualTo(SchemaRegistryException.Kind.UNAVAILABLE);
                    assertThat(e.getMessage()).contains(closed.toString());
                });

        answer = "{\"schema\":\"\\\"int\\\"\"}";
        assertThat(client(Optional.empty(), Optional.empty(), closed, base()).schemaById(1).schema()).isEqualTo("\"int\"");
    }
}
