package io.jetstream.kafka.launcher;

import static io.jetstream.kafka.launcher.ExplainFormat.bytes;
import static io.jetstream.kafka.launcher.ExplainFormat.count;
import static io.jetstream.kafka.launcher.ExplainFormat.figure;
import static io.jetstream.kafka.launcher.ExplainFormat.gigabytes;
import static io.jetstream.kafka.launcher.ExplainFormat.millis;
import static io.jetstream.kafka.launcher.ExplainFormat.money;
import static io.jetstream.kafka.launcher.ExplainFormat.num;
import static io.jetstream.kafka.launcher.ExplainFormat.percent;
import static io.jetstream.kafka.launcher.ExplainFormat.rate;
import static io.jetstream.kafka.launcher.ExplainFormat.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code ./jetstream explain} found: per Connect worker the views of its JetStream tasks
 * ({@code GET /jetstream/tasks}) and the state of the JetStream connectors ({@code GET /connectors}),
 * per relay its routes ({@code GET /metrics}); printed in plain words ({@link #words}) or as JSON
 * ({@link #json}). {@link #healthy} is false when a worker or relay did not answer, or a JetStream
 * connector or task failed.
 */
final class ExplainReport {

    /**
     * One Connect worker's answers; {@code error} says why there are none.
     *
     * @param connectors {@code GET /connectors?expand=status&expand=info}: name to status and info
     * @param tasks      the {@code tasks} array of {@code GET /jetstream/tasks}
     */
    record WorkerReading(String url, JsonNode connectors, JsonNode tasks, String error) {

        static WorkerReading failed(String url, String error) {
            return new WorkerReading(url, null, null, error);
        }
    }

    /**
     * One relay's routes and health; {@code error} says why there are none.
     *
     * @param health {@code GET /health}: status (UP, DEGRADED, DRAINING ...), relay id, buffers; null if not read
     */
    record RelayReading(String url, JsonNode health, RelayRoutes routes, String error) {

        static RelayReading failed(String url, String error) {
            return new RelayReading(url, null, null, error);
        }
    }

    /** A JetStream connector or task the Connect REST API reports FAILED. */
    record Failure(String connector, String task, String workerId, String trace) {

        String describe() {
            String firstLine = trace == null ? "" : ": " + trace.lines().findFirst().orElse("");
            return connector + (task == null ? "" : " task " + task) + " FAILED on " + workerId + firstLine;
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<WorkerReading> workers;
    private final List<RelayReading> relays;
    private final List<Failure> failures;

    ExplainReport(List<WorkerReading> workers, List<RelayReading> relays) {
        this.workers = List.copyOf(workers);
        this.relays = List.copyOf(relays);
        this.failures = failures(workers);
    }

    /** Every worker and relay answered and no JetStream connector or task failed. */
    boolean healthy() {
        return failures.isEmpty() && workers.stream().allMatch(w -> w.error() == null)
                && relays.stream().allMatch(r -> r.error() == null);
    }

    List<Failure> failures() {
        return failures;
    }

    /** The failed JetStream connectors and tasks of every worker's answer, each once. */
    private static List<Failure> failures(List<WorkerReading> workers) {
        Set<Failure> found = new LinkedHashSet<>();
        for (WorkerReading worker : workers) {
            if (worker.connectors() == null) {
                continue;
            }
            Iterator<Map.Entry<String, JsonNode>> connectors = worker.connectors().fields();
            while (connectors.hasNext()) {
                Map.Entry<String, JsonNode> connector = connectors.next();
                if (!isJetstream(connector.getValue())) {
                    continue;
                }
                JsonNode status = connector.getValue().path("status");
                JsonNode own = status.path("connector");
                if ("FAILED".equals(text(own, "state"))) {
                    found.add(new Failure(connector.getKey(), null, text(own, "worker_id"), text(own, "trace")));
                }
                for (JsonNode task : status.path("tasks")) {
                    if ("FAILED".equals(text(task, "state"))) {
                        found.add(new Failure(connector.getKey(), text(task, "id"), text(task, "worker_id"),
                                text(task, "trace")));
                    }
                }
            }
        }
        return List.copyOf(found);
    }

    /** A connector of this project: its class is in {@code io.jetstream}. */
    private static boolean isJetstream(JsonNode connector) {
        String type = text(connector.path("info").path("config"), "connector.class");
        return type != null && type.startsWith("io.jetstream.");
    }

    // ---- text

    /** The report in plain words, one block per worker and relay, ending with the verdict. */
    String words() {
        StringBuilder out = new StringBuilder();
        for (WorkerReading worker : workers) {
            worker(out, worker);
        }
        for (RelayReading relay : relays) {
            relay(out, relay);
        }
        if (!failures.isEmpty()) {
            out.append("Failed:\n");
            failures.forEach(f -> out.append("  ").append(f.describe()).append('\n'));
        }
        out.append(verdict()).append('\n');
        return out.toString();
    }

    private String verdict() {
        long unreachable = workers.stream().filter(w -> w.error() != null).count()
                + relays.stream().filter(r -> r.error() != null).count();
        int tasks = 0;
        for (WorkerReading worker : workers) {
            tasks += worker.tasks() == null ? 0 : worker.tasks().size();
        }
        String answered = (workers.size() + relays.size() - unreachable) + " of " + (workers.size() + relays.size())
                + " endpoints answered, " + tasks + " JetStream task" + (tasks == 1 ? "" : "s") + " explained, "
                + failures.size() + " failed";
        return (healthy() ? "OK: " : "PROBLEM: ") + answered;
    }

    private static void worker(StringBuilder out, WorkerReading worker) {
        out.append("Connect worker ").append(worker.url()).append('\n');
        if (worker.error() != null) {
            out.append("  not reachable: ").append(worker.error()).append('\n');
            return;
        }
        if (worker.tasks() == null || worker.tasks().isEmpty()) {
            out.append("  no JetStream task runs in this worker\n");
            return;
        }
        for (JsonNode task : worker.tasks()) {
            task(out, task);
        }
    }

    /** One task's block: a heading and its indented lines. */
    static void task(StringBuilder out, JsonNode task) {
        String role = text(task, "role");
        out.append("  ").append(text(task, "connector")).append(" task ").append(text(task, "task"));
        if (text(task, "view_error") != null) {
            out.append(": its view failed: ").append(text(task, "view_error")).append('\n');
            return;
        }
        out.append(" (").append(role).append(", ").append(text(task, "source_alias")).append(" -> ")
                .append(text(task, "target_alias"));
        if ("source-site".equals(role)) {
            out.append(", ").append(text(task, "compression")).append(")\n");
            for (String line : sourceLines(task)) {
                out.append("    ").append(line).append('\n');
            }
        } else {
            out.append(", ").append(text(task, "delivery")).append(")\n");
            for (String line : sinkLines(task)) {
                out.append("    ").append(line).append('\n');
            }
        }
    }

    /** A source-site task's caps, where it runs and what binds it, in words. */
    static List<String> sourceLines(JsonNode task) {
        List<String> lines = new ArrayList<>();
        JsonNode caps = task.path("caps");
        lines.add("batches of " + count(num(caps, "max_records")) + " records / " + bytes(num(caps, "max_bytes"))
                + ", linger " + millis(num(caps, "linger_ms")) + ", window " + count(num(caps, "window_batches"))
                + " batches / " + bytes(num(caps, "max_in_flight_bytes")) + " in flight");
        lines.add("latency: " + latency(task));
        JsonNode cell = task.get("resembles_cell");
        if (cell != null && cell.isObject()) {
            lines.add("environment: " + environment(cell));
        }
        JsonNode binds = task.get("binds");
        if (binds != null && binds.isObject()) {
            lines.add("binds: " + text(binds, "name") + " - " + text(binds, "evidence"));
        }
        JsonNode d = task.path("deliveries");
        String lastAck = Double.isNaN(num(d, "last_ack_age_ms")) ? "nothing acknowledged yet"
                : "last ack " + millis(num(d, "last_ack_age_ms")) + " ago";
        lines.add("delivered: " + count(num(d, "records_acked")) + " records acknowledged of "
                + count(num(d, "records_sent")) + " sent in " + count(num(d, "batches_sent")) + " batches, "
                + gigabytes(num(d, "wire_bytes_sent")) + " on the wire; " + lastAck + "; "
                + count(num(d, "records_resent")) + " resent, " + count(num(d, "nacks")) + " NACKs, "
                + count(num(d, "ack_timeouts")) + " timeouts");
        JsonNode sender = task.path("sender");
        JsonNode lag = task.path("lag");
        lines.add("sender: " + bytes(num(sender, "buffered_bytes")) + " buffered, "
                + count(num(sender, "in_flight_batches")) + " batches in flight, "
                + count(num(sender, "assigned_partitions")) + " partitions"
                + (sender.path("paused").asBoolean() ? ", PAUSED for backpressure" : "")
                + "; " + lag(lag));
        return lines;
    }

    /** The lag in words: caught up, or how much and how long to catch up ("never" while it does not shrink). */
    private static String lag(JsonNode lag) {
        double records = num(lag, "records");
        if (records == 0) {
            return "caught up (no lag)";
        }
        String catchUp = lag.path("catch_up_seconds").isNull() && !Double.isNaN(records) ? "never at current rates"
                : millis(num(lag, "catch_up_seconds") * 1000);
        return "lag " + count(records) + " records (" + bytes(num(lag, "bytes")) + "), catch-up " + catchUp;
    }

    private static String latency(JsonNode task) {
        double measured = num(task, "measured_latency_ms");
        return Double.isNaN(measured) ? "nothing measured yet"
                : millis(measured) + " measured (oldest record in a batch to its acknowledgement, recent batches)";
    }

    /**
     * The environment grid's cell the task resembles, with the cell's axes and what differs: "resembles
     * grid cell d75 (40 Mbit/s, 75 ms one way, 1 KiB records, 6 partitions; differs on: uplink at least
     * 12 Mbit/s measured)".
     */
    static String environment(JsonNode cell) {
        List<String> differs = new ArrayList<>();
        cell.path("differs_on").forEach(d -> differs.add(d.asText()));
        return "resembles grid cell " + text(cell, "name") + " (" + count(num(cell, "uplink_bits_per_second") / 1e6)
                + " Mbit/s, " + count(num(cell, "one_way_delay_ms")) + " ms one way, " + bytes(num(cell, "value_bytes"))
                + " records, " + count(num(cell, "partitions")) + " partitions; "
                + (differs.isEmpty() ? "close on every axis" : "differs on: " + String.join(", ", differs)) + ")";
    }

    /** A destination-site task's figures, in words. */
    static List<String> sinkLines(JsonNode task) {
        List<String> lines = new ArrayList<>();
        JsonNode a = task.path("activity");
        String lastWrite = Double.isNaN(num(a, "last_write_age_ms")) ? "nothing written yet"
                : "last write " + millis(num(a, "last_write_age_ms")) + " ago";
        String lastCommit = Double.isNaN(num(a, "last_commit_age_ms")) ? "no commit yet"
                : "last commit " + millis(num(a, "last_commit_age_ms")) + " ago";
        lines.add("wrote " + count(num(a, "records_out")) + " records (" + count(num(a, "duplicates_dropped"))
                + " duplicates dropped); " + lastWrite + ", " + lastCommit + " (" + count(num(a, "commits"))
                + " commits)");
        double heard = num(task, "heartbeat_age_seconds");
        lines.add("latency: " + millis(num(a, "replication_latency_ms")) + " from a record's timestamp to its write,"
                + " batches in transit " + millis(num(a, "batch_transit_ms")) + "; "
                + (Double.isNaN(heard) ? "nothing heard from the source yet"
                        : "last heard from the source " + millis(heard * 1000) + " ago (batch or heartbeat)"));
        JsonNode pending = task.path("pending");
        String stability = Double.isNaN(num(pending, "commits_awaiting_stability")) ? ""
                : ", " + count(num(pending, "commits_awaiting_stability")) + " commits awaiting stability";
        lines.add("pending: " + bytes(num(pending, "buffered_bytes")) + " buffered" + stability);
        return lines;
    }

    private static void relay(StringBuilder out, RelayReading relay) {
        out.append("Relay ").append(relay.url());
        JsonNode health = relay.health();
        if (health != null) {
            out.append(" (").append(text(health, "relayId")).append(", ").append(text(health, "status")).append(", ")
                    .append(count(num(health, "dataConnections"))).append(" data connections, ")
                    .append(bytes(num(health, "bufferedBytes"))).append(" buffered)");
        }
        out.append('\n');
        if (relay.error() != null) {
            out.append("  not reachable: ").append(relay.error()).append('\n');
            return;
        }
        RelayRoutes routes = relay.routes();
        if (routes.routes().isEmpty()) {
            out.append("  no routes reported (an egress or intermediate relay, or no traffic yet)\n");
        }
        String destination = null;
        for (RelayRoutes.Route route : routes.routes()) {
            if (!route.destination().equals(destination)) {
                destination = route.destination();
                Boolean cap = routes.spendCapReached().get(destination);
                out.append("  to ").append(destination).append(cap == null ? "" : cap
                        ? ": spend cap REACHED, no route takes more traffic" : ": spend cap not reached").append('\n');
            }
            out.append("    route ").append(route.route()).append(": ").append(routeLine(route)).append('\n');
        }
    }

    static String routeLine(RelayRoutes.Route r) {
        StringBuilder line = new StringBuilder();
        if (!Double.isNaN(r.weight())) {
            line.append("weight ").append(figure(r.weight())).append(", share ").append(percent(r.trafficShare()))
                    .append(", ").append(r.stateName() == null ? "state ?" : r.stateName()).append("; capacity ").append(rate(r.capacityBytesPerSecond()))
                    .append(", delivered ").append(rate(r.deliveredBytesPerSecond())).append(", round trip ")
                    .append(millis(r.rttSeconds() * 1000));
            if (!Double.isNaN(r.rankingRttSeconds())) {
                line.append(", ranked by ").append(millis(r.rankingRttSeconds() * 1000));
            }
            if (r.queueDrains() > 0) {
                line.append(" (").append((long) r.queueDrains())
                        .append(r.queueDrains() == 1 ? " queue drain" : " queue drains")
                        .append(" measured it without its own queue)");
            }
            line.append("; ");
        }
        line.append("acks after ").append(millis(r.ackLatencySeconds() * 1000)).append(" (mean, measured); ")
                .append(gigabytes(r.bytesOut())).append(" sent");
        if (!Double.isNaN(r.spent())) {
            line.append(", spent ").append(money(r.spent())).append(" = ").append(money(r.costPerGb()))
                    .append(" per GB");
        }
        return line.toString();
    }

    // ---- JSON

    /** The report as JSON: what each endpoint answered, the failures and the verdict. */
    ObjectNode json() {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("ok", healthy());
        ArrayNode workerArray = json.putArray("workers");
        for (WorkerReading w : workers) {
            ObjectNode node = workerArray.addObject();
            node.put("url", w.url());
            node.put("error", w.error());
            node.set("tasks", w.tasks() == null ? MAPPER.createArrayNode() : w.tasks());
        }
        ArrayNode relayArray = json.putArray("relays");
        for (RelayReading r : relays) {
            ObjectNode node = relayArray.addObject();
            node.put("url", r.url());
            node.put("error", r.error());
            node.set("health", r.health());
            ArrayNode routeArray = node.putArray("routes");
            if (r.routes() != null) {
                for (RelayRoutes.Route route : r.routes().routes()) {
                    ObjectNode routeNode = routeArray.addObject();
                    routeNode.put("destination", route.destination());
                    routeNode.put("route", route.route());
                    number(routeNode, "weight", route.weight());
                    number(routeNode, "traffic_share", route.trafficShare());
                    routeNode.put("state", route.stateName());
                    number(routeNode, "capacity_bytes_per_second", route.capacityBytesPerSecond());
                    number(routeNode, "delivered_bytes_per_second", route.deliveredBytesPerSecond());
                    number(routeNode, "rtt_ms", route.rttSeconds() * 1000);
                    number(routeNode, "ranking_rtt_ms", route.rankingRttSeconds() * 1000);
                    number(routeNode, "queue_drains", route.queueDrains());
                    number(routeNode, "ack_latency_ms", route.ackLatencySeconds() * 1000);
                    number(routeNode, "bytes_out", route.bytesOut());
                    number(routeNode, "spent", route.spent());
                    number(routeNode, "cost_per_gb", route.costPerGb());
                }
                ObjectNode caps = node.putObject("spend_cap_reached");
                r.routes().spendCapReached().forEach(caps::put);
            }
        }
        ArrayNode failed = json.putArray("failed");
        for (Failure f : failures) {
            ObjectNode node = failed.addObject();
            node.put("connector", f.connector());
            node.put("task", f.task());
            node.put("worker_id", f.workerId());
            node.put("trace", f.trace());
        }
        return json;
    }

    private static void number(ObjectNode node, String field, double value) {
        if (Double.isFinite(value)) {
            node.put(field, value);
        } else {
            node.putNull(field);
        }
    }
}
