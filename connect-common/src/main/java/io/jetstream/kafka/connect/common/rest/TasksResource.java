package io.jetstream.kafka.connect.common.rest;

import io.jetstream.kafka.connect.common.view.Json;
import io.jetstream.kafka.connect.common.view.TaskView;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * {@code GET /jetstream/tasks}: {@code {"tasks":[...]}}, the {@link TaskView} of every JetStream
 * task running in this worker, ordered by connector and task id. Each view is the JSON its task
 * wrote; a view that could not be read is reported with its name and the error.
 */
@Path("/jetstream")
public final class TasksResource {

    private final MBeanServer server;

    public TasksResource(MBeanServer server) {
        this.server = server;
    }

    @GET
    @Path("/tasks")
    @Produces(MediaType.APPLICATION_JSON)
    public String tasks() {
        return Json.write(Map.of("tasks", views()));
    }

    /** The views of the tasks in this JVM, as JSON texts. */
    List<Json.Raw> views() {
        Set<ObjectName> names = server.queryNames(TaskView.pattern(), null);
        List<ObjectName> sorted = new ArrayList<>(names);
        sorted.sort(Comparator.comparing((ObjectName n) -> n.getKeyProperty("connector"))
                .thenComparing(n -> Integer.parseInt(n.getKeyProperty("task"))));
        List<Json.Raw> views = new ArrayList<>();
        for (ObjectName name : sorted) {
            try {
                views.add(new Json.Raw((String) server.getAttribute(name, "Json")));
            } catch (InstanceNotFoundException e) {
                // the task stopped between the query and the read
            } catch (JMException | RuntimeException e) {
                Map<String, Object> failed = new LinkedHashMap<>();
                failed.put("connector", ObjectName.unquote(name.getKeyProperty("connector")));
                failed.put("task", Integer.parseInt(name.getKeyProperty("task")));
                failed.put("view_error", e.toString());
                views.add(new Json.Raw(Json.write(failed)));
            }
        }
        return views;
    }
}
