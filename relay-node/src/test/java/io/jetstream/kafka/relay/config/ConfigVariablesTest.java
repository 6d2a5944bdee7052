package io.jetstream.kafka.relay.config;

import static io.jetstream.kafka.relay.config.RelayConfigTest.minimal;
import static io.jetstream.kafka.relay.config.RelayConfigTest.problems;
import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.PeerRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets kept out of the relay's YAML: Kafka config providers resolve {@code ${provider:...}}
 * variables before validation. The build gives the test JVM {@code JETSTREAM_TEST_STREAM_TOKEN}
 * (relay-node's pom), so the environment provider is exercised for real.
 */
class ConfigVariablesTest {

    private static final String ENV_TOKEN = "env-token-from-the-build-0001";
    private static final String ENV_PROVIDER = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

    private static Map<String, Object> withProvider(String name, String className) {
        Map<String, Object> props = minimal();
        props.put("config.providers", name);
        props.put("config.providers." + name + ".class", className);
        return props;
    }

    @Test
    void aTokenComesFromTheEnvironment() {
        Map<String, Object> props = withProvider("env", ENV_PROVIDER);
        props.put("streams.s.token", "${env:JETSTREAM_TEST_STREAM_TOKEN}");

        StreamSpec stream = new RelayConfig(props).stream("s").orElseThrow();

        assertThat(System.getenv("JETSTREAM_TEST_STREAM_TOKEN")).as("set by relay-node's pom").isEqualTo(ENV_TOKEN);
        assertThat(stream.tokenMatches(PeerRole.SENDER, ENV_TOKEN)).isTrue();
    }

    @Test
    void tokensComeFromAMountedSecretDirectoryOneFilePerKey(@TempDir Path secrets) throws Exception {
        Files.writeString(secrets.resolve("sender-token"), "sender-token-from-a-file-01");
        Files.writeString(secrets.resolve("relay-token"), "relay-token-from-a-file-0001");
        Map<String, Object> props = withProvider("secrets",
                "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
        props.put("streams.s.token", "${env:JETSTREAM_TEST_STREAM_TOKEN}");
        props.put("config.providers", "secrets,env");
        props.put("config.providers.env.class", ENV_PROVIDER);
        props.put("streams.s.sender.token", "${secrets:" + secrets + ":sender-token}");
        props.put("streams.s.relay.token", "${secrets:" + secrets + ":relay-token}");

        StreamSpec stream = new RelayConfig(props).stream("s").orElseThrow();

        assertThat(stream.tokenMatches(PeerRole.SENDER, "sender-token-from-a-file-01")).isTrue();
        assertThat(stream.tokenMatches(PeerRole.RELAY, "relay-token-from-a-file-0001")).isTrue();
        assertThat(stream.tokenMatches(PeerRole.SUBSCRIBER, ENV_TOKEN)).isTrue();
    }

    @Test
    void aNestedYamlFileDeclaresProvidersByTheirKeys(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("relay.yaml");
        Files.writeString(yaml, """
                relay.id: relay-a1
                tls.enabled: false
                config:
                  providers:
                    env:
                      class: org.apache.kafka.common.config.provider.EnvVarConfigProvider
                      param.allowlist.pattern: ^JETSTREAM_.*
                streams:
                  s:
                    token: "${env:JETSTREAM_TEST_STREAM_TOKEN}"
                """);

        RelayConfig config = RelayConfig.load(yaml);

        assertThat(config.stream("s").orElseThrow().tokenMatches(PeerRole.SENDER, ENV_TOKEN)).isTrue();
    }

    @Test
    void providerParamsReachTheProvider() {
        Map<String, Object> props = withProvider("env", ENV_PROVIDER);
        props.put("config.providers.env.param.allowlist.pattern", "^OTHER_.*");
        props.put("streams.s.token", "${env:JETSTREAM_TEST_STREAM_TOKEN}");

        assertThat(problems(props)).containsExactly("Variable ${env:JETSTREAM_TEST_STREAM_TOKEN} in streams.s.token"
                + " did not resolve: config provider 'env' has no value for it");
    }

    @Test
    void anUnsetVariableIsAnErrorNamingKeyAndVariableNeverTakenAsTheValue() {
        Map<String, Object> props = withProvider("env", ENV_PROVIDER);
        props.put("streams.s.token", "${env:JETSTREAM_TEST_NOT_SET_ANYWHERE}");

        assertThat(problems(props)).containsExactly("Variable ${env:JETSTREAM_TEST_NOT_SET_ANYWHERE} in"
                + " streams.s.token did not resolve: config provider 'env' has no value for it");
    }

    @Test
    void aVariableOfAnUndeclaredProviderIsAnError() {
        Map<String, Object> props = minimal();
        props.put("streams.s.token", "${env:JETSTREAM_TEST_STREAM_TOKEN}");

        assertThat(problems(props)).containsExactly("Variable ${env:JETSTREAM_TEST_STREAM_TOKEN} in streams.s.token"
                + " did not resolve: no config provider 'env' is declared in config.providers");
    }

    @Test
    void aProviderNeedsAClassThatIsAConfigProvider() {
        Map<String, Object> props = minimal();
        props.put("config.providers", List.of("a", "b"));
        props.put("config.providers.a.class", "java.lang.String");
        props.put("config.providers.b.class", "com.example.NoSuchProvider");

        assertThat(problems(props)).containsExactly(
                "Invalid value java.lang.String for configuration config.providers.a.class: is not a"
                        + " org.apache.kafka.common.config.provider.ConfigProvider",
                "Invalid value com.example.NoSuchProvider for configuration config.providers.b.class: class not"
                        + " found on the relay's class path");
    }

    @Test
    void aProviderKeyOtherThanClassOrParamsIsUnknown() {
        Map<String, Object> props = withProvider("env", ENV_PROVIDER);
        props.put("config.providers.env.clas", ENV_PROVIDER);

        assertThat(problems(props)).containsExactly(
                "Unknown configuration key config.providers.env.clas (did you mean config.providers.env.class?)");
    }
}
