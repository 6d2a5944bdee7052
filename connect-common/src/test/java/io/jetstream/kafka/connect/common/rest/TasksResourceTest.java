package io.jetstream.kafka.connect.common.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.view.TaskView;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The task views through the platform MBean server, as the REST extension reads them in a worker. */
class TasksResourceTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final TasksResource resource = new TasksResource(server);
    private final List<TaskView> views = new ArrayList<>();

    @AfterEach
    void closeViews() {
        views.forEach(TaskView::close);
    }

    private TaskView register(String connector, int task, Map<String, Object> members) {
        TaskView view = TaskView.register(connector, task, () -> members);
        views.add(view);
        return view;
    }

    private static Map<String, Object> role(String role) {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("role", role);
        return members;
    }

    @Test
    void servesEveryTaskViewOrderedByConnectorAndTask() {
        register("sink", 0, role("destination-site"));
        register("source \"a\",b", 10, role("source-site"));
        register("source \"a\",b", 2, role("source-site"));

        assertThat(resource.tasks()).isEqualTo("{\"tasks\":["
                + "{\"connector\":\"sink\",\"task\":0,\"role\":\"destination-site\"},"
                + "{\"connector\":\"source \\\"a\\\",b\",\"task\":2,\"role\":\"source-site\"},"
                + "{\"connector\":\"source \\\"a\\\",b\",\"task\":10,\"role\":\"source-site\"}]}");
    }

    @Test
    void aViewIsComputedAtEachRead() {
        AtomicInteger reads = new AtomicInteger();
        views.add(TaskView.register("c", 0, () -> Map.of("reads", reads.incrementAndGet())));

        assertThat(resource.tasks()).contains("\"reads\":1");
        assertThat(resource.tasks()).contains("\"reads\":2");
    }

    @Test
    void aFailingViewIsReportedWithoutFailingTheOthers() {
        views.add(TaskView.register("broken", 0, () -> {
            throw new IllegalStateException("sender closed");
        }));
        register("fine", 0, role("source-site"));

        assertThat(resource.tasks()).isEqualTo("{\"tasks\":["
                + "{\"connector\":\"broken\",\"task\":0,\"view_error\":\"java.lang.IllegalStateException: sender closed\"},"
                + "{\"connector\":\"fine\",\"task\":0,\"role\":\"source-site\"}]}");
    }

    @Test
    void aNewInstanceOfATaskReplacesTheOldOnesViewAndTheOldOnesCloseLeavesIt() {
        TaskView old = register("c", 1, role("old"));
        register("c", 1, role("new"));

        old.close();

        assertThat(resource.tasks()).isEqualTo("{\"tasks\":[{\"connector\":\"c\",\"task\":1,\"role\":\"new\"}]}");
    }

    @Test
    void aClosedViewIsGoneAndClosingTwiceIsHarmless() {
        TaskView view = register("c", 0, role("source-site"));

        view.close();
        view.close();

        assertThat(resource.tasks()).isEqualTo("{\"tasks\":[]}");
        assertThat(server.isRegistered(TaskView.objectName("c", 0))).isFalse();
    }
}
