package io.jetstream.kafka.connect.common.rest;

import java.lang.management.ManagementFactory;
import java.util.Map;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds {@code GET /jetstream/tasks} to a Kafka Connect worker's REST API: the current decisions of
 * every JetStream task running in this worker, and why ({@link TasksResource}). Enable it with
 * {@code rest.extension.classes=io.jetstream.kafka.connect.common.rest.JetstreamRestExtension} in the
 * worker's properties; the worker finds it in the JetStream plugins on its {@code plugin.path}.
 *
 * <p>Kafka Connect 4.x only (its REST API is Jakarta RS). On a 3.x worker, whose REST API is
 * {@code javax.ws.rs}, the extension logs that it cannot serve and leaves the worker running.
 */
public final class JetstreamRestExtension implements ConnectRestExtension {

    private static final Logger log = LoggerFactory.getLogger(JetstreamRestExtension.class);

    @Override
    public void configure(Map<String, ?> configs) {
        // nothing to configure
    }

    @Override
    public void register(ConnectRestExtensionContext context) {
        try {
            context.configurable().register(new TasksResource(ManagementFactory.getPlatformMBeanServer()));
            log.info("JetStream REST extension: GET /jetstream/tasks serves the JetStream tasks of this worker");
        } catch (LinkageError e) {
            log.warn("JetStream REST extension: this worker's REST API is not Jakarta RS (Kafka Connect before 4.0), "
                    + "so GET /jetstream/tasks is not served here ({})", e.toString());
        }
    }

    @Override
    public void close() {
        // nothing held
    }

    @Override
    public String version() {
        String version = JetstreamRestExtension.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
