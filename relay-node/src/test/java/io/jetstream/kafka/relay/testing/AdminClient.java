package io.jetstream.kafka.relay.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client for the admin listener (java.net.http). */
public final class AdminClient {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final InetSocketAddress admin;

    public AdminClient(InetSocketAddress admin) {
        this.admin = admin;
    }

    public HttpResponse<String> get(String path) {
        return send(request(path).GET().build());
    }

    public HttpResponse<String> send(String method, String path, String body) {
        return send(request(path).method(method, HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + path))
                .timeout(Duration.ofSeconds(5));
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
