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
 */
public final class OffsetMapTopic {

    private static final Logger log = LoggerFactory.getLogger(OffsetMapTopic.class);

    private OffsetMapTopic() {
    }

    public static void ensure(Admin admin, String topic, Duration retention, short replicationFactor, Duration timeout)
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
