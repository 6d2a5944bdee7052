package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventsOutputTest {

    private static VariantResult withEvents(VariantResult v, EventsResult events) {
        return new VariantResult(v.id(), v.title(), v.replicator(), v.topic(), v.destinationTopic(), v.wireCodec(),
                v.latency(), v.backlog(), v.verification(), v.deployment(), v.timeline(), v.latencyCdf(),
                v.latencyOverTime(), v.error(), List.of(), events);
    }

    private static final EventsResult COLD = new EventsResult("cold-start", 1800, 100, List.of(
            new EventsResult.Event("restart-tasks", "restart-tasks", "", 30, 60, 0.1, 12.0, 300.0, 12.5, 3.0, null, null,
                    null, null, null, null, null, 1790, 0.99, 80, 900, 5.0, true),
            new EventsResult.Event("kill-relay-a2", "kill-relay", "a2", 60, 75, 0.0, 12.0, 20.0, 18.0, null, null, null,
                    null, null, null, null, null, 1700, 0.94, 90, 1200, 5.0, false)),
            List.of(new double[] {29, 12, 100}, new double[] {30, 300, 5}), Map.of(), 70, 800, 1, 2);

    private static final EventsResult CAPACITY = new EventsResult("capacity-change", 3250, 150, List.of(
            new EventsResult.Event("lower-a2", "set-uplink-rate", "a2", 40, 100, 0.05, null, null, null, null, "via-a2",
                    0.33, 0.12, Map.of("direct", 0.444, "via-a2", 0.111, "via-a3", 0.444), 0.97, 6.0, 0, 3240, 0.997,
                    70, 400, 10.0, true)),
            List.of(), Map.of("via-a2", List.of(new double[] {39, 0.33}, new double[] {41, 0.12})), 70, 400, 1, 1);

    @Test
    void eventsGoToTheJsonTheHtmlAndTheResultLine(@TempDir Path dir) throws Exception {
        List<VariantResult> variants = List.of(
                withEvents(Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "zstd", 1, 650, 0.1, 900), COLD),
                withEvents(Fixtures.variant(Variants.JS_3_ROUTES, "jetstream", "zstd", 1, 650, 0.1, 400), CAPACITY));
        BenchResult result = Fixtures.result(variants);
        Path json = dir.resolve("r.json");
        BenchJson.write(result, json);
        JsonNode events = new ObjectMapper().readTree(Files.readString(json)).get("variants").get(0).get("events");
        assertThat(events.get("events_within_target").asInt()).isEqualTo(1);
        JsonNode restart = events.get("events").get(0);
        assertThat(restart.get("recovery_s").asDouble()).isEqualTo(3.0);
        assertThat(restart.get("within_target").asBoolean()).isTrue();
        assertThat(events.get("events").get(1).get("recovery_s").isNull()).isTrue();
        assertThat(events.get("records_per_batch").get(1).get(1).asDouble()).isEqualTo(300.0);

        String html = BenchHtml.render(result);
        assertThat(html).contains("<h2>Events</h2>").contains("restart-tasks").contains("never")
                .contains("records per batch of the source tasks").contains("share of bytes per route");

        String figures = BenchReport.eventFigures(variants);
        assertThat(figures).startsWith(" events_within_target=2/3")
                .contains("recovery_s=js-1route:3.0/never")
                .contains("shares=js-3routes:lower-a2:0.33->0.12:6s:0flaps");
        assertThat(BenchReport.eventFigures(List.of(Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "zstd", 1, 650,
                0.1, 90)))).isEmpty();
    }
}
