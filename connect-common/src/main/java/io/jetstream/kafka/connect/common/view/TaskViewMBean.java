package io.jetstream.kafka.connect.common.view;

/**
 * The management interface of a {@link TaskView}: what a JetStream task decided and why, as JSON.
 * Read by the REST extension ({@code GET /jetstream/tasks}) through the platform MBean server, the
 * one registry a task (loaded by its plugin's class loader) and the extension share.
 */
public interface TaskViewMBean {

    /** The task's view now, as a JSON object (computed on each read). */
    String getJson();

    /** Identifies the task instance that registered the view (a later instance of the task replaces it). */
    long getInstanceId();
}
