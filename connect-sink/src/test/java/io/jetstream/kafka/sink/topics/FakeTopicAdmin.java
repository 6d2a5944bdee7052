package io.jetstream.kafka.sink.topics;

import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsResult;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;

/**
 * The topic side of a destination cluster, in memory, behind the {@link Admin} calls
 * {@link DestinationTopics} makes: topics with partition counts and their dynamic config overrides.
 * Records every topic creation and every config change. Any other call fails the test.
 */
final class FakeTopicAdmin {

    final Map<String, Integer> partitions = new HashMap<>();
    final Map<String, Map<String, String>> overrides = new HashMap<>();
    final List<String> created = new ArrayList<>();
    final List<String> alterations = new ArrayList<>();
    /** Partitions whose leader does not serve them yet (a new topic's logs not made yet): ListOffsets fails. */
    final java.util.Set<TopicPartition> notServed = new java.util.HashSet<>();
    int listOffsetsCalls;

    /** A topic that exists with these partitions and overrides. */
    FakeTopicAdmin topic(String name, int partitionCount, Map<String, String> configs) {
        partitions.put(name, partitionCount);
        overrides.put(name, new TreeMap<>(configs));
        return this;
    }

    Admin admin() {
        return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "close" -> null;
                    case "describeTopics" -> describeTopics((Collection<?>) args[0]);
                    case "createTopics" -> createTopics((Collection<?>) args[0]);
                    case "describeConfigs" -> describeConfigs((Collection<?>) args[0]);
                    case "incrementalAlterConfigs" -> alter((Map<?, ?>) args[0]);
                    case "listOffsets" -> listOffsets((Map<?, ?>) args[0]);
                    default -> throw new AssertionError("unexpected Admin call " + method.getName());
                });
    }

    private synchronized DescribeTopicsResult describeTopics(Collection<?> names) {
        Map<String, KafkaFuture<TopicDescription>> out = new HashMap<>();
        for (Object o : names) {
            String name = (String) o;
            KafkaFutureImpl<TopicDescription> future = new KafkaFutureImpl<>();
            Integer count = partitions.get(name);
            if (count == null) {
                future.completeExceptionally(new UnknownTopicOrPartitionException(name));
            } else {
                List<TopicPartitionInfo> infos = new ArrayList<>();
                Node node = new Node(0, "localhost", 9092);
                for (int p = 0; p < count; p++) {
                    infos.add(new TopicPartitionInfo(p, node, List.of(node), List.of(node)));
                }
                future.complete(new TopicDescription(name, false, infos));
            }
            out.put(name, future);
        }
        return new DescribeTopicsResult(null, out) { };
    }

    private synchronized ListOffsetsResult listOffsets(Map<?, ?> request) {
        listOffsetsCalls++;
        Map<TopicPartition, KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo>> out = new HashMap<>();
        for (Object o : request.keySet()) {
            TopicPartition tp = (TopicPartition) o;
            KafkaFutureImpl<ListOffsetsResult.ListOffsetsResultInfo> future = new KafkaFutureImpl<>();
            if (notServed.contains(tp) || !partitions.containsKey(tp.topic())) {
                future.completeExceptionally(new NotLeaderOrFollowerException("not served yet: " + tp));
            } else {
                future.complete(new ListOffsetsResult.ListOffsetsResultInfo(0L, -1L, Optional.empty()));
            }
            out.put(tp, future);
        }
        return new ListOffsetsResult(out);
    }

    private synchronized CreateTopicsResult createTopics(Collection<?> topics) {
        Map<String, KafkaFuture<CreateTopicsResult.TopicMetadataAndConfig>> out = new HashMap<>();
        for (Object o : topics) {
            NewTopic topic = (NewTopic) o;
            created.add(topic.name());
            partitions.put(topic.name(), topic.numPartitions());
            overrides.put(topic.name(), new TreeMap<>(topic.configs() == null ? Map.of() : topic.configs()));
            out.put(topic.name(), KafkaFuture.completedFuture(null));
        }
        return new CreateTopicsResult(out) { };
    }

    private synchronized DescribeConfigsResult describeConfigs(Collection<?> resources) {
        Map<ConfigResource, KafkaFuture<Config>> out = new HashMap<>();
        for (Object o : resources) {
            ConfigResource resource = (ConfigResource) o;
            List<ConfigEntry> entries = new ArrayList<>();
            overrides.getOrDefault(resource.name(), Map.of()).forEach((k, v) -> entries.add(new ConfigEntry(k, v,
                    ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, false, false, List.of(),
                    ConfigEntry.ConfigType.STRING, null)));
            entries.add(new ConfigEntry("segment.bytes", "1073741824", ConfigEntry.ConfigSource.DEFAULT_CONFIG, false,
                    false, List.of(), ConfigEntry.ConfigType.INT, null));
            out.put(resource, KafkaFuture.completedFuture(new Config(entries)));
        }
        return new DescribeConfigsResult(out) { };
    }

    private synchronized AlterConfigsResult alter(Map<?, ?> changes) throws Exception {
        Map<ConfigResource, KafkaFuture<Void>> out = new HashMap<>();
        changes.forEach((r, ops) -> {
            ConfigResource resource = (ConfigResource) r;
            Map<String, String> configs = overrides.computeIfAbsent(resource.name(), n -> new TreeMap<>());
            for (Object o : (Collection<?>) ops) {
                AlterConfigOp op = (AlterConfigOp) o;
                alterations.add(resource.name() + " " + op.opType() + " " + op.configEntry().name()
                        + (op.opType() == AlterConfigOp.OpType.SET ? "=" + op.configEntry().value() : ""));
                if (op.opType() == AlterConfigOp.OpType.SET) {
                    configs.put(op.configEntry().name(), op.configEntry().value());
                } else if (op.opType() == AlterConfigOp.OpType.DELETE) {
                    configs.remove(op.configEntry().name());
                } else {
                    throw new AssertionError("unexpected " + op);
                }
            }
            out.put(resource, KafkaFuture.completedFuture(null));
        });
        Constructor<AlterConfigsResult> constructor = AlterConfigsResult.class.getDeclaredConstructor(Map.class);
        constructor.setAccessible(true);
        return constructor.newInstance(out);
    }
}
