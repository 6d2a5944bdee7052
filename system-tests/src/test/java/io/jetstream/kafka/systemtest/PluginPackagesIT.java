package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The connector plugin zips as a user installs them: the Confluent Hub component layout (one
 * folder {@code <owner>-<name>-<version>} with manifest.json, lib/, doc/, etc/), the connector's
 * own dependencies only (a Connect worker loads the org.apache.kafka packages, slf4j and the
 * compression libraries from its own class path, so a bundled copy is dead weight), and the ready
 * connector config (licence files and manifest fields: {@link ReleaseArtifactsTest}). That the plugins load and replicate
 * from this layout is what every other system test shows.
 */
class PluginPackagesIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0}")
    @CsvSource({"connect-source, sink, source-connector.json", "connect-sink, source, sink-connector.json"})
    void thePluginZipIsAHubComponentWithOnlyTheConnectorsOwnJars(String module, String componentType,
                                                                   String exampleConfig) throws IOException {
        Path zip = ReleaseArtifactsTest.pluginZip(module);
        String root = ReleaseArtifactsTest.baseName(zip) + "/";
        try (ZipFile file = new ZipFile(zip.toFile())) {
            List<String> names = new ArrayList<>();
            for (Enumeration<? extends ZipEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                names.add(entries.nextElement().getName());
            }
            assertThat(names).as("one top-level folder").allMatch(name -> name.startsWith(root));

            JsonNode manifest = JSON.readTree(read(file, root + "manifest.json"));
            assertThat(manifest.path("name").asText()).isEqualTo(module);
            assertThat(manifest.path("version").asText()).as("filtered from the pom").doesNotContain("${")
                    .isEqualTo(zip.getFileName().toString().replace("jetstream-" + module + "-", "").replace(".zip", ""));
            assertThat(manifest.path("component_types").get(0).asText()).isEqualTo(componentType);
            assertThat(manifest.path("owner").path("username").asText()).isNotBlank();
            assertThat(manifest.path("features").path("kafka_connect_api").asBoolean()).isTrue();

            List<String> jars = names.stream().filter(n -> n.startsWith(root + "lib/") && n.endsWith(".jar"))
                    .map(n -> n.substring((root + "lib/").length())).toList();
            assertThat(jars).anyMatch(j -> j.startsWith("jetstream-" + module + "-"))
                    .anyMatch(j -> j.startsWith("jetstream-core-")).anyMatch(j -> j.startsWith("jetstream-transport-"))
                    .anyMatch(j -> j.startsWith("jetstream-connect-common-"))
                    .anyMatch(j -> j.startsWith("netty-handler-"));
            assertThat(jars).as("what the Connect runtime provides").noneMatch(j -> j.startsWith("kafka-")
                    || j.startsWith("connect-") || j.startsWith("slf4j-") || j.startsWith("zstd-jni-")
                    || j.startsWith("lz4-java-") || j.startsWith("snappy-java-"));

            assertThat(read(file, root + "etc/" + exampleConfig)).as("the shipped config").isEqualTo(
                    Files.readString(SiteFiles.projectRoot().resolve("config").resolve(exampleConfig)));
            assertThat(names).contains(root + "doc/README.md", root + "doc/operations.md");
        }
    }

    private static String read(ZipFile file, String name) throws IOException {
        ZipEntry entry = file.getEntry(name);
        assertThat(entry).as(name).isNotNull();
        return new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
    }
}
