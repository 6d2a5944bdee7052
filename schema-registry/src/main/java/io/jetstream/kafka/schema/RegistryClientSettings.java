package io.jetstream.kafka.schema;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * How to reach a schema registry.
 *
 * @param urls base URLs of the registry's Confluent-compatible API (tried in order; the first that
 *     answers serves the call), e.g. {@code http://registry:8081} or {@code .../apis/ccompat/v7}
 * @param basicUserInfo {@code user:password} for HTTP basic authentication, or empty
 * @param bearerToken a bearer token, or empty (at most one of the two)
 * @param sslContext the TLS context for {@code https} URLs, or empty for the JVM's default
 * @param connectTimeout longest wait for a connection
 * @param requestTimeout longest wait for one answer
 * @param cacheSize most ids and registrations remembered
 */
public record RegistryClientSettings(List<URI> urls, Optional<String> basicUserInfo, Optional<String> bearerToken,
                                     Optional<SSLContext> sslContext, Duration connectTimeout, Duration requestTimeout,
                                     int cacheSize) {

    public RegistryClientSettings {
        urls = List.copyOf(urls);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("at least one registry URL is needed");
        }
        Objects.requireNonNull(basicUserInfo, "basicUserInfo");
        Objects.requireNonNull(bearerToken, "bearerToken");
        Objects.requireNonNull(sslContext, "sslContext");
        if (basicUserInfo.isPresent() && bearerToken.isPresent()) {
            throw new IllegalArgumentException("basic authentication and a bearer token exclude each other");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (cacheSize < 1) {
            throw new IllegalArgumentException("cacheSize " + cacheSize + " < 1");
        }
    }

    /** No authentication, no TLS context of its own, 5 s to connect, 10 s per answer, 1,000 entries. */
    public static RegistryClientSettings of(URI url) {
        return new RegistryClientSettings(List.of(url), Optional.empty(), Optional.empty(), Optional.empty(),
                Duration.ofSeconds(5), Duration.ofSeconds(10), 1_000);
    }

    @Override
    public String toString() {
        return "registry " + urls + (basicUserInfo.isPresent() ? " (basic auth)" : "")
                + (bearerToken.isPresent() ? " (bearer token)" : "");
    }
}
