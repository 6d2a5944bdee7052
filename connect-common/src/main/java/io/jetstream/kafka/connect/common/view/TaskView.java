package io.jetstream.kafka.connect.common.view;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running task's current decisions and their reasons, registered as a platform MBean
 * ({@code io.jetstream.kafka:type=task-view,connector=<name>,task=<id>}) whose {@code Json}
 * attribute is computed on each read. The REST extension and {@code ./jetstream explain} read it.
 *
 * <p>Why an MBean: a worker loads each plugin with its own class loader, and the REST extension
 * may come from another plugin folder than the task; a static registry would hold one copy per
 * loader. The platform MBean server is one per JVM, and its attributes are plain strings.
 *
 * <p>Lifecycle: {@link #register} in the task's {@code start}, {@link #close} in its {@code stop}.
 * A new instance of a task replaces the view of an older one still alive; the older one's close
 * then leaves the new view in place.
 */
public final class TaskView implements TaskViewMBean, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TaskView.class);
    /** The JMX domain and type of the views; the REST extension queries {@code DOMAIN:type=TYPE,*}. */
    public static final String DOMAIN = "io.jetstream.kafka";
    public static final String TYPE = "task-view";
    private static final AtomicLong INSTANCES = new AtomicLong();

    private final MBeanServer server;
    private final ObjectName name;
    private final String connector;
    private final int task;
    private final Supplier<Map<String, Object>> view;
    private final long instanceId = INSTANCES.incrementAndGet() ^ (System.nanoTime() << 20);
    private final AtomicBoolean closed = new AtomicBoolean();

    private TaskView(MBeanServer server, ObjectName name, String connector, int task,
                     Supplier<Map<String, Object>> view) {
        this.server = server;
        this.name = name;
        this.connector = connector;
        this.task = task;
        this.view = view;
    }

    /**
     * Registers the view of task {@code task} of {@code connector}: {@code view} gives its members
     * (after {@code connector} and {@code task}), read on the REST thread while the task runs, so it
     * must be thread-safe. A failure to register is logged, never thrown: the task runs without a view.
     */
    public static TaskView register(String connector, int task, Supplier<Map<String, Object>> view) {
        return register(ManagementFactory.getPlatformMBeanServer(), connector, task, view);
    }

    static TaskView register(MBeanServer server, String connector, int task, Supplier<Map<String, Object>> view) {
        ObjectName name = objectName(connector, task);
        TaskView registered = new TaskView(server, name, connector, task, view);
        try {
            try {
                server.registerMBean(registered, name);
            } catch (InstanceAlreadyExistsException e) {
                // an older instance of the task is still alive (Connect gave up stopping it): the live one wins
                server.unregisterMBean(name);
                server.registerMBean(registered, name);
            }
        } catch (JMException | RuntimeException e) {
            log.warn("The view of task {} of connector {} could not be registered ({}): ./jetstream explain and "
                    + "GET /jetstream/tasks will not show it", task, connector, e.toString());
            registered.closed.set(true);
        }
        return registered;
    }

    /** The JMX name of a task's view. */
    public static ObjectName objectName(String connector, int task) {
        try {
            return new ObjectName(DOMAIN + ":type=" + TYPE + ",connector=" + ObjectName.quote(connector) + ",task="
                    + task);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("No JMX name for task " + task + " of connector " + connector, e);
        }
    }

    /** The pattern that matches every task view in a JVM. */
    public static ObjectName pattern() {
        try {
            return new ObjectName(DOMAIN + ":type=" + TYPE + ",*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String getJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("connector", connector);
        json.put("task", task);
        try {
            json.putAll(view.get());
        } catch (RuntimeException e) {
            // a view that fails must not fail the whole answer: say what failed instead
            json.put("view_error", e.toString());
        }
        return Json.write(json);
    }

    @Override
    public long getInstanceId() {
        return instanceId;
    }

    /** Unregisters the view unless a later instance of the task replaced it; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Object holder = server.getAttribute(name, "InstanceId");
            if (holder instanceof Long id && id == instanceId) {
                server.unregisterMBean(name);
            }
        } catch (InstanceNotFoundException e) {
            // gone already
        } catch (JMException | RuntimeException e) {
            log.warn("The view of task {} of connector {} could not be unregistered: {}", task, connector,
                    e.toString());
        }
    }
}
