package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

class DestinationTopicsTest {

    /** An Admin client that fails the test if the code under test calls it at all. */
    private static Admin untouchable() {
        return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    throw new AssertionError("no Admin call expected, got " + method.getName());
                });
    }

    private static DestinationTopics topics(boolean create, int partitionsMax) {
        return new DestinationTopics(untouchable(), TopicNamingPolicy.create("prefix", "A", "."), create, (short) -1,
                true, name -> false, Duration.ofSeconds(5), topic -> { }, partitionsMax);
    }

    @Test
    void originMetadataBeyondThePartitionLimitIsRefusedBeforeAnythingIsCreated() {
        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("demo", 1, "node-1", "B"),
                "orders", 5_000, Map.of());

        assertThatThrownBy(() -> topics(true, 4096).apply(metadata))
                .isInstanceOf(DestinationTopics.PartitionLimitException.class)
                .hasMessageContaining("orders has 5000 partitions, more than create.topics.partitions.max=4096");
    }

    @Test
    void aBatchForAPartitionBeyondTheLimitIsRefusedBeforeAnyTopicIsGrown() {
        assertThatThrownBy(() -> topics(false, 16).ensure("orders", 16))
                .isInstanceOf(DestinationTopics.PartitionLimitException.class)
                .hasMessageContaining("would need 17 partitions at the destination (topic A.orders), more than"
                        + " create.topics.partitions.max=16");
    }
}
