package io.jetstream.kafka.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client of the Confluent Schema Registry REST API (v7; Apicurio serves the same under
 * {@code /apis/ccompat/v7}) on the JDK's {@link HttpClient} and Jackson: basic or bearer
 * authentication, TLS through the settings' {@code SSLContext}, connect and request timeouts, and
 * caches. Ids are immutable in a registry, so a schema fetched by id is cached for good; a
 * registration is cached per subject and schema text. Failures are classified
 * ({@link SchemaRegistryException.Kind}); the next URL of the list is tried when one is unreachable.
 *
 * <p>Thread-safe. Calls block for at most the connect plus request timeout per URL tried.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private record Registration(String subject, String type, String schema) {
    }

    private final RegistryClientSettings settings;
    private final HttpClient http;
    private final String authorization;
    private final BoundedCache<Integer, RegisteredSchema> byId;
    private final BoundedCache<Registration, Integer> registered;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    public RestSchemaRegistryClient(RegistryClientSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        HttpClient.Builder builder = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        settings.sslContext().ifPresent(builder::sslContext);
        this.http = builder.build();
        this.authorization = settings.basicUserInfo()
                .map(info -> "Basic " + Base64.getEncoder().encodeToString(info.getBytes(StandardCharsets.UTF_8)))
                .or(() -> settings.bearerToken().map(token -> "Bearer " + token))
                .orElse(null);
        this.byId = new BoundedCache<>(settings.cacheSize());
        this.registered = new BoundedCache<>(settings.cacheSize());
    }

    @Override
    public RegisteredSchema schemaById(int id) throws SchemaRegistryException {
        RegisteredSchema cached = byId.get(id);
        if (cached != null) {
            return cached;
        }
        JsonNode answer = call("GET", "/schemas/ids/" + id, null, "schema id " + id);
        JsonNode schema = answer.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.OTHER, 200,
                    "The registry's answer for schema id " + id + " has no schema text: " + abbreviate(answer.toString()));
        }
        JsonNode type = answer.get("schemaType");
        JsonNode references = answer.get("references");
        RegisteredSchema found = new RegisteredSchema(type == null || type.isNull() ? RegisteredSchema.AVRO
                : type.asText().toUpperCase(), schema.asText(), references == null ? 0 : references.size());
        byId.put(id, found);
        return found;
    }

    @Override
    public int register(String subject, RegisteredSchema schema) throws SchemaRegistryException {
        Registration key = new Registration(subject, schema.type(), schema.schema());
        Integer cached = registered.get(key);
        if (cached != null) {
            return cached;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schema.schema());
        if (!schema.isAvro()) {
            body.put("schemaType", schema.type());
        }
        JsonNode answer = call("POST", "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8)
                + "/versions", body.toString(), "registration under subject " + subject);
        JsonNode id = answer.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.OTHER, 200,
                    "The registry's answer to a registration under subject " + subject + " has no id: "
                            + abbreviate(answer.toString()));
        }
        registered.put(key, id.asInt());
        byId.put(id.asInt(), schema);
        return id.asInt();
    }

    /** Calls made to the registry (cache misses), counting each URL tried. */
    public long calls() {
        return calls.get();
    }

    /** Calls that failed. */
    public long failures() {
        return failures.get();
    }

    private JsonNode call(String method, String path, String body, String what) throws SchemaRegistryException {
        SchemaRegistryException last = null;
        for (URI base : settings.urls()) {
            try {
                return call(base, method, path, body, what);
            } catch (SchemaRegistryException e) {
                if (e.kind() != SchemaRegistryException.Kind.UNAVAILABLE) {
                    throw e; // an answer: another URL of the same registry would give the same
                }
                last = e;
            }
        }
        throw last;
    }

    private JsonNode call(URI base, String method, String path, String body, String what)
            throws SchemaRegistryException {
        String root = base.toString().endsWith("/") ? base.toString().substring(0, base.toString().length() - 1)
                : base.toString();
        URI uri = URI.create(root + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(settings.requestTimeout())
                .header("Accept", CONTENT_TYPE + ", application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (body == null) {
            request.GET();
        } else {
            request.header("Content-Type", CONTENT_TYPE).POST(HttpRequest.BodyPublishers.ofString(body));
        }
        calls.incrementAndGet();
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            failures.incrementAndGet();
            throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, 0,
                    "Schema registry " + base + " did not answer the " + what + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.incrementAndGet();
            throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, 0,
                    "Interrupted while waiting for schema registry " + base + " (" + what + ")", e);
        }
        int status = response.statusCode();
        if (status / 100 != 2) {
            failures.incrementAndGet();
            String message = errorMessage(response.body());
            SchemaRegistryException.Kind kind = SchemaRegistryException.kindOf(status);
            if (kind == SchemaRegistryException.Kind.INCOMPATIBLE && message.contains("already exists")) {
                // Apicurio answers 409 to a registration that raced another creating the subject (e.g. a
                // retry after a timeout while the first one went through): a conflict, not incompatibility
                kind = SchemaRegistryException.Kind.UNAVAILABLE;
            }
            throw new SchemaRegistryException(kind, status, "Schema registry " + base + " refused the " + what
                    + ": HTTP " + status + " " + message);
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            failures.incrementAndGet();
            throw new SchemaRegistryException(SchemaRegistryException.Kind.OTHER, status, "Schema registry " + base
                    + " answered the " + what + " with something that is not JSON: " + abbreviate(response.body()), e);
        }
    }

    /** The {@code message} of a Confluent error body ({@code {"error_code":..,"message":..}}), else the body. */
    private static String errorMessage(String body) {
        try {
            JsonNode error = JSON.readTree(body);
            if (error != null && error.hasNonNull("message")) {
                return (error.hasNonNull("error_code") ? "(error " + error.get("error_code").asText() + ") " : "")
                        + abbreviate(error.get("message").asText());
            }
        } catch (IOException e) {
            // not JSON: the body as it is
        }
        return abbreviate(body);
    }

    private static String abbreviate(String text) {
        return text == null ? "" : text.length() <= 500 ? text : text.substring(0, 500) + "...";
    }

    @Override
    public String toString() {
        return settings.toString();
    }
}
