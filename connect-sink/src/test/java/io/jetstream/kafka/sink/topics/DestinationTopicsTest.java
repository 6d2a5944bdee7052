package io.jetstream.kafka.sink.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
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

    private static final Uuid ORDERS_ID = Uuid.randomUuid();
    private static final String WEEK = "604800000";
    private static final String HOUR = "3600000";

    private static TopicMetadataFrame orders(long generation, Map<String, String> configs) {
        return new TopicMetadataFrame(RoutingHeader.unrouted("demo", generation, "node-1", "B"), "orders", 6, configs,
                ORDERS_ID, generation);
    }

    private static DestinationTopics syncing(FakeTopicAdmin cluster) {
        return new DestinationTopics(cluster.admin(), TopicNamingPolicy.create("prefix", "A", "."), true, (short) -1,
                true, name -> name.equals("min.insync.replicas"), Duration.ofSeconds(5), topic -> { }, 4096);
    }

    @Test
    void anOlderDescriptionArrivingAfterANewerOneIsNeverApplied() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin().topic("A.orders", 6, Map.of());
        DestinationTopics topics = syncing(cluster);
        long now = System.currentTimeMillis();

        topics.apply(orders(now, Map.of("retention.ms", WEEK)));
        // a relay re-sends the description of 30 s ago (or it took a slower route)
        catchThrowable(() -> topics.apply(orders(now - 30_000, Map.of("retention.ms", HOUR, "cleanup.policy",
                "compact"))));

        assertThat(cluster.overrides.get("A.orders")).containsExactlyEntriesOf(Map.of("retention.ms", WEEK));
    }

    @Test
    void aDescriptionOlderThanTheMaximumAgeIsNotAppliedEvenByATaskThatHasSeenNoOther() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin().topic("A.orders", 6, Map.of("retention.ms", WEEK));
        long tenMinutesAgo = System.currentTimeMillis() - 600_000;

        // a task just restarted: whatever it applied before is forgotten, and a relay replays an old frame
        catchThrowable(() -> syncing(cluster).apply(orders(tenMinutesAgo, Map.of("retention.ms", HOUR))));

        assertThat(cluster.overrides.get("A.orders")).containsExactlyEntriesOf(Map.of("retention.ms", WEEK));
    }

    @Test
    void anOverrideRemovedAtTheOriginIsRemovedAtTheDestinationButExcludedOnesStay() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin().topic("A.orders", 6, Map.of("retention.ms", HOUR,
                "cleanup.policy", "compact", "min.insync.replicas", "2"));

        syncing(cluster).apply(orders(System.currentTimeMillis(), Map.of("cleanup.policy", "delete")));

        assertThat(cluster.overrides.get("A.orders")).containsExactlyInAnyOrderEntriesOf(Map.of(
                "cleanup.policy", "delete", "min.insync.replicas", "2"));
        assertThat(cluster.alterations).containsExactlyInAnyOrder("A.orders SET cleanup.policy=delete",
                "A.orders DELETE retention.ms");
    }

    /** A clock tests move by hand. */
    private static final class ManualClock extends java.time.Clock {
        long millis = System.currentTimeMillis();

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.ofEpochMilli(millis);
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void unsignedMetadataCreatesAtMostTheCappedNumberOfTopicsPerInterval() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin();
        ManualClock clock = new ManualClock();
        DestinationTopics topics = new DestinationTopics(cluster.admin(), TopicNamingPolicy.create("prefix", "A", "."),
                true, (short) -1, true, name -> false, Duration.ofSeconds(5), topic -> { }, 4096,
                new MetadataGenerations(clock, Duration.ofMinutes(5)),
                new TopicCreationBudget(2, Duration.ofHours(1), clock));
        for (String topic : List.of("t1", "t2", "t3")) {
            TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("demo", 1, "node-1", "B"),
                    topic, 4_096, Map.of(), Uuid.randomUuid(), clock.millis());
            if (topic.equals("t3")) {
                assertThatThrownBy(() -> topics.apply(metadata))
                        .isInstanceOf(DestinationTopics.CreationLimitException.class)
                        .hasMessageContaining("create.topics.unsigned.max");
            } else {
                topics.apply(metadata);
            }
        }
        assertThat(cluster.created).containsExactly("A.t1", "A.t2");

        clock.millis += Duration.ofHours(1).toMillis();
        topics.apply(new TopicMetadataFrame(RoutingHeader.unrouted("demo", 2, "node-1", "B"), "t3", 1, Map.of(),
                Uuid.randomUuid(), clock.millis()));
        assertThat(cluster.created).as("an interval later").containsExactly("A.t1", "A.t2", "A.t3");
    }

    @Test
    void aTopicCreatedHereTakesBatchesOnlyOnceItsLeaderServesEveryPartition() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin();
        DestinationTopics topics = syncing(cluster);
        topics.readinessCheckInterval(Duration.ZERO);
        topics.apply(orders(System.currentTimeMillis(), Map.of()));
        // the broker has made the logs of partitions 0-2; 3-5 are still being made
        for (int p = 3; p < 6; p++) {
            cluster.notServed.add(new org.apache.kafka.common.TopicPartition("A.orders", p));
        }

        assertThatThrownBy(() -> topics.ensure("orders", 0))
                .isInstanceOf(DestinationTopics.MetadataPendingException.class)
                .hasMessageContaining("A.orders was just created or grown and partition 3 is not served by its leader");

        cluster.notServed.clear();
        topics.ensure("orders", 0);
        topics.ensure("orders", 5);
        assertThat(cluster.listOffsetsCalls).as("no check once the topic was seen ready").isEqualTo(2);
    }

    @Test
    void betweenTwoReadinessChecksBatchesAreRefusedWithoutAskingTheCluster() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin();
        DestinationTopics topics = syncing(cluster);
        topics.readinessCheckInterval(Duration.ofHours(1));
        topics.apply(orders(System.currentTimeMillis(), Map.of()));
        cluster.notServed.add(new org.apache.kafka.common.TopicPartition("A.orders", 4));

        catchThrowable(() -> topics.ensure("orders", 0));
        assertThatThrownBy(() -> topics.ensure("orders", 1))
                .isInstanceOf(DestinationTopics.MetadataPendingException.class);

        assertThat(cluster.listOffsetsCalls).isEqualTo(1);
    }

    @Test
    void aTopicThatExistedBeforeIsWrittenWithoutAReadinessCheck() throws Exception {
        FakeTopicAdmin cluster = new FakeTopicAdmin().topic("A.orders", 6, Map.of());
        DestinationTopics topics = syncing(cluster);
        topics.apply(orders(System.currentTimeMillis(), Map.of()));

        topics.ensure("orders", 5);

        assertThat(cluster.listOffsetsCalls).isZero();
    }
}
