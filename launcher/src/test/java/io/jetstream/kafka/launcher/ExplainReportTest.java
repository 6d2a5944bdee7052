package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExplainReportTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A source-site task's view as SourceTaskView writes it. */
    static final String SOURCE_TASK = """
            {"connector":"jetstream-source","task":0,"role":"source-site","source_alias":"A","target_alias":"B",
             "compression":"zstd",
             "caps":{"max_records":1200,"max_bytes":524288,"linger_ms":3.0,"window_batches":8,
                     "max_in_flight_bytes":67108864},
             "measured_latency_ms":55.4,
             "operating_point":{"base_rtt_ms":50,"one_way_delay_ms":25,"arrival_records_per_second":2000,
                                "arrival_bytes_per_second":2048000,"mean_record_bytes":1024,
                                "sent_wire_bytes_per_second":3900000,"delivered_wire_bytes_per_second":3900000,
                                "delivered_peak_bytes_per_second":4700000,"path_throughput_bytes_per_second":null,
                                "link_utilisation":0.83,"records_per_batch":1150,"active_partitions":6,
                                "assigned_partitions":6,"in_flight_batches":3,"in_flight_bytes":1258291,
                                "window_batches":8,"window_bytes":67108864,"window_fullness":0.3,
                                "backlog_records":0,"backlog_bytes":0,"records_wait":false,"jvm_cpu_cores":0.4,
                                "available_cores":4,"machine_cpu_load":0.2},
             "resembles_cell":{"name":"default","index":0,"moves":"-","uplink_bits_per_second":40000000,
                               "one_way_delay_ms":25,"value_bytes":1024,"partitions":6,"distance":0.0,
                               "differs_on":[]},
             "binds":{"name":"none",
                      "evidence":"sending 3.9 MB/s, path peak 4.7 MB/s; latency is the linger (3.0 ms) plus the round trip (50 ms)"},
             "deliveries":{"batches_sent":1234,"records_sent":123500,"records_acked":123456,"batches_acked":1230,
                           "uncompressed_bytes_sent":126464000,"wire_bytes_sent":72084480,"last_ack_age_ms":20,
                           "records_resent":0,"nacks":0,"ack_timeouts":0},
             "sender":{"buffered_bytes":1258291,"in_flight_batches":3,"paused":false,"assigned_partitions":6},
             "lag":{"records":120,"bytes":122880,"catch_up_seconds":0.2}}
            """;

    /** A task that has acknowledged nothing yet, from a build without the operating point. */
    static final String FIXED_TASK = """
            {"connector":"jetstream-source","task":1,"role":"source-site","source_alias":"A","target_alias":"B",
             "compression":"lz4",
             "caps":{"max_records":500,"max_bytes":1048576,"linger_ms":5.0,"window_batches":16,
                     "max_in_flight_bytes":67108864},
             "measured_latency_ms":null,
             "deliveries":{"batches_sent":0,"records_sent":0,"records_acked":0,"last_ack_age_ms":null},
             "sender":{"buffered_bytes":0,"in_flight_batches":0,"paused":true,"assigned_partitions":2},
             "lag":{"records":null,"bytes":null,"catch_up_seconds":null}}
            """;

    static final String SINK_TASK = """
            {"connector":"jetstream-sink","task":0,"role":"destination-site","source_alias":"A","target_alias":"B",
             "delivery":"exactly-once",
             "activity":{"records_out":123456,"duplicates_dropped":12,"commits":34,"last_write_age_ms":5,
                         "last_commit_age_ms":200,"replication_latency_ms":60.2,"batch_transit_ms":30},
             "heartbeat_age_seconds":0.8,
             "pending":{"buffered_bytes":12288,"commits_awaiting_stability":1}}
            """;

    static final String CONNECTORS = """
            {"jetstream-source":{"info":{"config":{"connector.class":"io.jetstream.kafka.source.SourceSiteConnector"}},
               "status":{"connector":{"state":"RUNNING","worker_id":"w1:8083"},
                         "tasks":[{"id":0,"state":"RUNNING","worker_id":"w1:8083"},
                                  {"id":2,"state":"FAILED","worker_id":"w1:8083",
                                   "trace":"org.apache.kafka.connect.errors.ConnectException: relay refused\\n\\tat x"}]}},
             "other":{"info":{"config":{"connector.class":"org.example.Other"}},
               "status":{"connector":{"state":"FAILED","worker_id":"w1:8083"},"tasks":[]}}}
            """;

    private static JsonNode json(String text) throws Exception {
        return MAPPER.readTree(text);
    }

    private static ExplainReport.WorkerReading worker(String connectors, String... tasks) throws Exception {
        return new ExplainReport.WorkerReading("http://w1:8083", json(connectors),
                json("[" + String.join(",", tasks) + "]"), null);
    }

    @Test
    void aSourceTaskIsExplainedInWords() throws Exception {
        List<String> lines = ExplainReport.sourceLines(json(SOURCE_TASK));

        assertThat(lines).containsExactly(
                "batches of 1,200 records / 512 KiB, linger 3.0 ms, window 8 batches / 64 MiB in flight",
                "latency: 55 ms measured (oldest record in a batch to its acknowledgement, recent batches)",
                "environment: resembles grid cell default (40 Mbit/s, 25 ms one way, 1 KiB records, 6 partitions;"
                        + " close on every axis)",
                "binds: none - sending 3.9 MB/s, path peak 4.7 MB/s; latency is the linger (3.0 ms) plus the round"
                        + " trip (50 ms)",
                "delivered: 123,456 records acknowledged of 123,500 sent in 1,234 batches, 72.1 MB on the wire;"
                        + " last ack 20 ms ago; 0 resent, 0 NACKs, 0 timeouts",
                "sender: 1.2 MiB buffered, 3 batches in flight, 6 partitions; lag 120 records (120 KiB), catch-up"
                        + " 200 ms");
    }

    @Test
    void figuresNotMeasuredYetAreSaidSo() throws Exception {
        List<String> lines = ExplainReport.sourceLines(json(FIXED_TASK));

        assertThat(lines).contains("latency: nothing measured yet");
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("nothing acknowledged yet"));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("PAUSED for backpressure")
                .contains("lag ? records"));
    }

    @Test
    void aLagThatDoesNotShrinkNeverCatchesUpAndNoLagIsCaughtUp() throws Exception {
        ObjectNode task = (ObjectNode) json(SOURCE_TASK);
        ObjectNode lag = (ObjectNode) task.path("lag");
        lag.putNull("catch_up_seconds");
        assertThat(senderLine(task)).endsWith("; lag 120 records (120 KiB), catch-up never at current rates");
        lag.put("records", 0).put("bytes", 0).put("catch_up_seconds", 0);
        assertThat(senderLine(task)).endsWith("6 partitions; caught up (no lag)");
    }

    private static String senderLine(JsonNode task) {
        return ExplainReport.sourceLines(task).stream().filter(line -> line.startsWith("sender: ")).findFirst()
                .orElseThrow();
    }

    @Test
    void theGridCellTheTaskResemblesAndWhatBindsItAreSaidWithTheirFigures() throws Exception {
        ObjectNode task = (ObjectNode) json(SOURCE_TASK);
        task.set("resembles_cell", json("{\"name\":\"d75\",\"index\":4,\"moves\":\"75 ms one way\","
                + "\"uplink_bits_per_second\":40000000,\"one_way_delay_ms\":75,\"value_bytes\":1024,"
                + "\"partitions\":6,\"distance\":0.0,\"differs_on\":[\"uplink at least 12 Mbit/s measured\"]}"));
        task.set("binds", json("{\"name\":\"round-trip\",\"evidence\":\"window 95% full (31/32 batches) at"
                + " 3.1 MB/s, path peak 4.9 MB/s, RTT 150 ms\"}"));

        assertThat(ExplainReport.sourceLines(task)).contains(
                "environment: resembles grid cell d75 (40 Mbit/s, 75 ms one way, 1 KiB records, 6 partitions;"
                        + " differs on: uplink at least 12 Mbit/s measured)",
                "binds: round-trip - window 95% full (31/32 batches) at 3.1 MB/s, path peak 4.9 MB/s, RTT 150 ms");
        task.set("resembles_cell", json("{\"name\":\"r100-p1200\",\"uplink_bits_per_second\":40000000,"
                + "\"one_way_delay_ms\":25,\"value_bytes\":100,\"partitions\":1200,\"differs_on\":"
                + "[\"one-way delay 60 ms measured\",\"records of 300 B measured\"]}"));
        assertThat(ExplainReport.sourceLines(task)).contains("environment: resembles grid cell r100-p1200 (40 Mbit/s,"
                + " 25 ms one way, 100 B records, 1,200 partitions; differs on: one-way delay 60 ms measured, records of"
                + " 300 B measured)");
    }

    @Test
    void aTaskFromABuildWithoutTheOperatingPointHasNeitherLine() throws Exception {
        assertThat(ExplainReport.sourceLines(json(FIXED_TASK)))
                .noneSatisfy(line -> assertThat(line).startsWith("environment:"))
                .noneSatisfy(line -> assertThat(line).startsWith("binds:"));
    }

    @Test
    void aDestinationTaskShowsWritesCommitsLatencyAndWhatIsPending() throws Exception {
        assertThat(ExplainReport.sinkLines(json(SINK_TASK))).containsExactly(
                "wrote 123,456 records (12 duplicates dropped); last write 5.0 ms ago, last commit 200 ms ago"
                        + " (34 commits)",
                "latency: 60 ms from a record's timestamp to its write, batches in transit 30 ms; last heard from the"
                        + " source 800 ms ago (batch or heartbeat)",
                "pending: 12 KiB buffered, 1 commits awaiting stability");
    }

    @Test
    void aFailedJetstreamTaskMakesTheReportUnhealthyAndIsListedOnce() throws Exception {
        ExplainReport report = new ExplainReport(List.of(worker(CONNECTORS, SOURCE_TASK),
                worker(CONNECTORS, SINK_TASK)), List.of());

        assertThat(report.healthy()).isFalse();
        assertThat(report.failures()).extracting(ExplainReport.Failure::describe).containsExactly(
                "jetstream-source task 2 FAILED on w1:8083: org.apache.kafka.connect.errors.ConnectException: relay"
                        + " refused");
        String words = report.words();
        assertThat(words).contains("Connect worker http://w1:8083\n  jetstream-source task 0 (source-site, A -> B,"
                + " zstd)\n    batches of 1,200 records");
        assertThat(words).contains("  jetstream-sink task 0 (destination-site, A -> B, exactly-once)\n");
        assertThat(words).endsWith("PROBLEM: 2 of 2 endpoints answered, 2 JetStream tasks explained, 1 failed\n");
    }

    @Test
    void allAnsweringAndNothingFailedIsHealthy() throws Exception {
        RelayMetrics metrics = new RelayMetrics("a1");
        metrics.decision(RelayMetrics.ROUTE_WEIGHT, "B", "direct").set(1);
        metrics.route("B", "direct").bytesOut().inc(5e8);
        metrics.spent("B", "direct", 0.01);
        metrics.spendCapReached("B", false);
        ExplainReport report = new ExplainReport(List.of(worker("{}", SOURCE_TASK)),
                List.of(new ExplainReport.RelayReading("http://a1:9100", json("{\"status\":\"UP\",\"relayId\":\"a1\","
                        + "\"dataConnections\":3,\"bufferedBytes\":2048}"), RelayRoutes.parse(metrics.scrape()), null)));

        assertThat(report.healthy()).isTrue();
        assertThat(report.words()).contains("Relay http://a1:9100 (a1, UP, 3 data connections, 2 KiB buffered)\n  to B: spend cap not reached\n    route direct:"
                + " weight 1.00, share ?, state ?; capacity ?, delivered ?, round trip ?; acks after ? (mean, measured);"
                + " 500.0 MB sent, spent 0.0100 = 0.0200 per GB\n")
                .endsWith("OK: 2 of 2 endpoints answered, 1 JetStream task explained, 0 failed\n");
        JsonNode json = report.json();
        assertThat(json.path("ok").asBoolean()).isTrue();
        assertThat(json.path("relays").get(0).path("routes").get(0).path("cost_per_gb").asDouble()).isEqualTo(0.02);
        assertThat(json.path("workers").get(0).path("tasks").get(0).path("measured_latency_ms").asDouble())
                .isEqualTo(55.4);
        JsonNode task = json.path("workers").get(0).path("tasks").get(0);
        assertThat(task.path("binds").path("name").asText()).as("passed through").isEqualTo("none");
        assertThat(task.path("resembles_cell").path("name").asText()).isEqualTo("default");
        assertThat(task.path("operating_point").path("delivered_peak_bytes_per_second").asDouble()).isEqualTo(4.7e6);
    }

    @Test
    void aRouteRankedByItsRoundTripWithoutItsQueueSaysHowOftenItWasDrained() {
        RelayMetrics metrics = new RelayMetrics("a1");
        metrics.decision(RelayMetrics.ROUTE_WEIGHT, "B", "via-a2").set(0.2);
        metrics.decision(RelayMetrics.ROUTE_RTT, "B", "via-a2").set(0.163);
        metrics.decision(RelayMetrics.ROUTE_RANKING_RTT, "B", "via-a2").set(0.064);
        metrics.queueDrains("B", "via-a2", 3);
        RelayRoutes.Route route = RelayRoutes.parse(metrics.scrape()).routes().get(0);

        assertThat(route.queueDrains()).isEqualTo(3);
        assertThat(ExplainReport.routeLine(route)).contains("round trip 163 ms, ranked by 64 ms (3 queue drains"
                + " measured it without its own queue); ");
    }

    @Test
    void anUnreachableEndpointIsNamedAndUnhealthy() {
        ExplainReport report = new ExplainReport(
                List.of(ExplainReport.WorkerReading.failed("http://w9:8083", "GET http://w9:8083/connectors failed:"
                        + " Connection refused")),
                List.of(ExplainReport.RelayReading.failed("http://r9:9100", "GET http://r9:9100/metrics answered 500")));

        assertThat(report.healthy()).isFalse();
        assertThat(report.words()).contains("Connect worker http://w9:8083\n  not reachable: GET"
                + " http://w9:8083/connectors failed: Connection refused\n")
                .contains("Relay http://r9:9100\n  not reachable: GET http://r9:9100/metrics answered 500\n")
                .endsWith("PROBLEM: 0 of 2 endpoints answered, 0 JetStream tasks explained, 0 failed\n");
        assertThat(report.json().path("workers").get(0).path("error").asText()).contains("Connection refused");
    }

    @Test
    void aViewThatFailedIsShownWithItsError() throws Exception {
        StringBuilder out = new StringBuilder();
        ExplainReport.task(out, json("{\"connector\":\"c\",\"task\":3,\"view_error\":\"java.lang.IllegalStateException:"
                + " closed\"}"));

        assertThat(out).hasToString("  c task 3: its view failed: java.lang.IllegalStateException: closed\n");
    }
}
