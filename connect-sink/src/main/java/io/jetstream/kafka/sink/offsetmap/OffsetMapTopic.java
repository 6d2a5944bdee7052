package io.jetstream.kafka.sink.offsetmap;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the offset map topic when it is missing: one partition (entries are small and a reader
 * reads the whole map), delete policy with a bounded retention (entries are ranges, each its own
 * fact, so compaction by key would lose them). Several tasks may race: "already exists" is success.
 * Made once per task instance ({@link #ready()}); until it exists the task takes no batches (they
 * wait at the relay and the source), so no record is written unmapped. Task thread only.
 */
public final class OffsetMapTopic {

    private static final Logger log = LoggerFactory.getLogger(OffsetMapTopic.class);

    private final Admin admin;
    private final String name;
    private final Duration retention;
    private final short replicationFactor;
    private final Duration timeout;
    /** Whether the topic is known to exist. */
    private boolean ready;

    public OffsetMapTopic(Admin admin, String name, Duration retention, short replicationFactor, Duration timeout) {
        this.admin = admin;
        this.name = name;
        this.retention = retention;
        this.replicationFactor = replicationFactor;
        this.timeout = timeout;
    }

    public String name() {
        return name;
    }

    /** Makes the topic if it is missing, once; whether it exists (a failure is logged, and tried again next time). */
    public boolean ready() {
        if (ready) {
            return true;
        }
        try {
            ensure(admin, name, retention, replicationFactor, timeout);
            ready = true;
        } catch (Exception e) {
            log.warn("Cannot make the offset map topic {}; batches wait until it exists: {}", name, e.toString());
        }
        return ready;
    }

    private static void ensure(Admin admin, String topic, Duration retention, short replicationFactor, Duration timeout)
            throws Exception {
        if (admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).contains(topic)) {
            return;
        }
        NewTopic newTopic = new NewTopic(topic, Optional.of(1),
                replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor))
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis())));
        try {
            admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            log.info("Created the offset map topic {} (retention {} ms)", topic, retention.toMillis());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
