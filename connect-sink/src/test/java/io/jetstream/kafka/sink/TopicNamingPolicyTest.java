package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A naming policy written against the interface's former name still loads and names topics. */
class TopicNamingPolicyTest {

    /** A user's policy compiled against {@code io.jetstream.kafka.sink.TopicNamingPolicy}. */
    @SuppressWarnings("deprecation")
    public static final class FormerlyNamedPolicy implements TopicNamingPolicy {
        private String alias;

        @Override
        public void configure(String sourceAlias, String separator) {
            this.alias = sourceAlias;
        }

        @Override
        public String destinationTopic(String originTopic) {
            return alias + "-" + originTopic;
        }
    }

    @Test
    void aPolicyImplementingTheFormerInterfaceNameIsLoadedByClassName() {
        io.jetstream.kafka.sink.naming.TopicNamingPolicy policy = io.jetstream.kafka.sink.naming.TopicNamingPolicy
                .create(FormerlyNamedPolicy.class.getName(), "A", ".");

        assertThat(policy).isInstanceOf(FormerlyNamedPolicy.class);
        assertThat(policy.destinationTopic("orders")).isEqualTo("A-orders");
    }
}
