package io.jetstream.kafka.connect.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterClientConfigsTest {

    private static final String PREFIX = ClusterClientConfigs.SOURCE_PREFIX;
    private static final String SECRET = "s3cr3t-never-printed";
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"jetstream\" password=\"" + SECRET + "\";";

    /** A connector-like definition: its own alias and bootstrap keys plus the cluster's security keys. */
    private static final ConfigDef DEF = ClusterClientConfigs.define(new ConfigDef()
                    .define(PREFIX + "alias", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "alias")
                    .define(PREFIX + "bootstrap.servers", ConfigDef.Type.LIST, ConfigDef.Importance.HIGH, "servers"),
            PREFIX, "Source cluster security", "the source cluster");

    @TempDir
    static Path dir;

    private static Map<String, String> plain() {
        Map<String, String> props = new HashMap<>();
        props.put(PREFIX + "alias", "A");
        props.put(PREFIX + "bootstrap.servers", "a1:9093,a2:9093");
        return props;
    }

    private static Map<String, String> saslSsl() throws Exception {
        Map<String, String> props = plain();
        Path truststore = Files.writeString(dir.resolve("truststore.p12"), "not checked here");
        props.put(PREFIX + "security.protocol", "SASL_SSL");
        props.put(PREFIX + "sasl.mechanism", "PLAIN");
        props.put(PREFIX + "sasl.jaas.config", JAAS);
        props.put(PREFIX + "ssl.truststore.location", truststore.toString());
        props.put(PREFIX + "ssl.truststore.password", SECRET);
        props.put(PREFIX + "ssl.truststore.type", "PKCS12");
        return props;
    }

    private static ClusterClients clients(Map<String, String> props) {
        return ClusterClientConfigs.clients(new AbstractConfig(DEF, props), PREFIX, "source cluster");
    }

    @Test
    void everySecretOfKafkasClientsIsDeclaredAsAPasswordUnderThePrefix() {
        ClusterClientConfigs.KAFKA_CLIENT_SECURITY.configKeys().values().stream()
                .filter(k -> k.type == ConfigDef.Type.PASSWORD)
                .forEach(k -> assertThat(DEF.configKeys().get(PREFIX + k.name).type)
                        .as(PREFIX + k.name).isEqualTo(ConfigDef.Type.PASSWORD));
        assertThat(DEF.configKeys()).containsKeys(PREFIX + "security.protocol", PREFIX + "sasl.mechanism",
                PREFIX + "ssl.truststore.location", PREFIX + "ssl.keystore.location",
                PREFIX + "ssl.endpoint.identification.algorithm");
        assertThat(DEF.configKeys().get(PREFIX + "security.protocol").documentation)
                .contains("the source cluster").contains(PREFIX + "ssl.*");
    }

    @Test
    void withoutSecurityKeysClientsGetOnlyTheBootstrapServersAndTheirId() {
        ClusterClients clients = clients(plain());
        assertThat(clients.config("task-0-metadata")).containsOnly(
                Map.entry("bootstrap.servers", "a1:9093,a2:9093"), Map.entry("client.id", "task-0-metadata"));
        assertThat(clients.securityProtocol()).isEqualTo("PLAINTEXT");
        assertThat(clients.ignoredKeys()).isEmpty();
        assertThat(ClusterClientConfigs.errors(plain(), PREFIX)).isEmpty();
    }

    @Test
    void securityKeysPassThroughWithSecretsHidden() throws Exception {
        Map<String, String> props = saslSsl();
        props.put(PREFIX + "sasl.login.connect.timeout.ms", "5000"); // not declared: passed through all the same
        props.put(PREFIX + "request.timeout.ms", "1000");            // not a security setting: ignored, as in MM2
        ClusterClients clients = clients(props);
        Map<String, Object> config = clients.config("id");
        assertThat(config).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.truststore.type", "PKCS12")
                .containsEntry("sasl.login.connect.timeout.ms", "5000")
                .doesNotContainKeys("request.timeout.ms", "alias");
        assertThat(config.get("sasl.jaas.config")).isInstanceOf(Password.class);
        assertThat(((Password) config.get("sasl.jaas.config")).value()).isEqualTo(JAAS);
        assertThat(((Password) config.get("ssl.truststore.password")).value()).isEqualTo(SECRET);
        assertThat(clients.ignoredKeys()).containsExactly(PREFIX + "request.timeout.ms");
        assertThat(config.toString()).doesNotContain(SECRET);
        assertThat(clients.toString()).isEqualTo("source cluster a1:9093,a2:9093 over SASL_SSL (PLAIN)")
                .doesNotContain(SECRET);
        assertThat(ClusterClientConfigs.errors(props, PREFIX)).isEmpty();
    }

    @Test
    void declaredKeysAreValidatedByTheConfigDefOnThePrefixedKey() {
        Map<String, String> props = plain();
        props.put(PREFIX + "security.protocol", "SASL_TLS");
        assertThatThrownBy(() -> new AbstractConfig(DEF, props)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(PREFIX + "security.protocol").hasMessageContaining("SASL_TLS");
        props.put(PREFIX + "security.protocol", "sasl_ssl"); // Kafka takes any case
        assertThat(new AbstractConfig(DEF, props).getString(PREFIX + "security.protocol")).isEqualTo("sasl_ssl");
    }

    @Test
    void passThroughKeysAreValidatedWithKafkasRulesOnThePrefixedKey() throws Exception {
        Map<String, String> props = saslSsl();
        props.put(PREFIX + "sasl.login.refresh.window.factor", "2.5");
        props.put(PREFIX + "sasl.login.connect.timeout.ms", "soon");
        props.put(PREFIX + "sasl.jass.config", "typo");
        Map<String, String> errors = ClusterClientConfigs.errors(props, PREFIX);
        assertThat(errors.get(PREFIX + "sasl.login.refresh.window.factor")).contains("no more than 1.0");
        assertThat(errors.get(PREFIX + "sasl.login.connect.timeout.ms")).contains("INT");
        assertThat(errors.get(PREFIX + "sasl.jass.config")).contains("not a setting of Kafka's clients");
    }

    @Test
    void securityKeysUnderPlaintextAreReportedOnTheProtocol() throws Exception {
        Map<String, String> props = saslSsl();
        props.remove(PREFIX + "security.protocol");
        assertThat(ClusterClientConfigs.errors(props, PREFIX).get(PREFIX + "security.protocol"))
                .contains("PLAINTEXT").contains(PREFIX + "sasl.jaas.config");
    }

    @Test
    void storesMustBeReadableAndJaasMustParseWithoutQuotingTheSecret() throws Exception {
        Map<String, String> props = saslSsl();
        props.put(PREFIX + "ssl.keystore.location", "/nonexistent/keystore.p12");
        props.put(PREFIX + "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"jetstream\" password=\"" + SECRET + "\"");
        Map<String, String> errors = ClusterClientConfigs.errors(props, PREFIX);
        assertThat(errors.get(PREFIX + "ssl.keystore.location")).contains("not a readable file");
        assertThat(errors.get(PREFIX + "sasl.jaas.config")).contains("not a valid JAAS configuration")
                .doesNotContain(SECRET);

        Map<String, String> noJaas = saslSsl();
        noJaas.remove(PREFIX + "sasl.jaas.config");
        assertThat(ClusterClientConfigs.errors(noJaas, PREFIX).get(PREFIX + "sasl.jaas.config"))
                .contains("must be set");
    }
}
