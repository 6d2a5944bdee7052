package io.jetstream.kafka.testkit.site;

import java.util.List;

/**
 * A connector's status as {@code GET /connectors/{name}/status} reports it.
 *
 * @param state RUNNING, PAUSED, STOPPED, FAILED, RESTARTING or UNASSIGNED
 * @param trace the stack trace of a FAILED connector, else null
 */
public record ConnectorStatus(String name, String state, String workerId, String trace, List<Task> tasks) {

    public ConnectorStatus {
        tasks = List.copyOf(tasks);
    }

    /** One task's status. */
    public record Task(int id, String state, String workerId, String trace) {
    }

    public boolean isRunningWith(int taskCount) {
        return "RUNNING".equals(state) && tasks.size() >= taskCount
                && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
    }

    /** The first failure trace of the connector or a task, or null when nothing failed. */
    public String firstFailure() {
        if ("FAILED".equals(state)) {
            return "connector " + name + ": " + trace;
        }
        return tasks.stream().filter(t -> "FAILED".equals(t.state()))
                .map(t -> "task " + name + "-" + t.id() + ": " + t.trace())
                .findFirst().orElse(null);
    }
}
