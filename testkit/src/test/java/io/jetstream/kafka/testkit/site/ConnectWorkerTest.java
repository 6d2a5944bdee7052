package io.jetstream.kafka.testkit.site;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which workers load the JetStream REST extension of config/connect-worker.properties. */
class ConnectWorkerTest {

    private static final ConnectRuntime KAFKA_4 = new ConnectRuntime("4.3.1", "", ConnectRuntime.Logging.LOG4J2);
    private static final ConnectRuntime KAFKA_3 = new ConnectRuntime("3.9.2", "", ConnectRuntime.Logging.LOG4J1);

    @TempDir
    Path dir;

    /** A plugin.path folder as the packaging makes it: it holds the plugin folder {@code jetstream-connect-source-0.1.0}. */
    private Path jetstreamPlugins() throws Exception {
        Path folder = dir.resolve("jetstream-connect-source-0.1.0");
        Files.createDirectories(folder.resolve("jetstream-connect-source-0.1.0").resolve("lib"));
        return folder;
    }

    private Properties written(String name, List<Path> pluginPath, ConnectRuntime runtime) throws Exception {
        Path workDir = dir.resolve(name);
        new ConnectWorker(name, workDir, "127.0.0.1:9092", pluginPath, Map.of(), "256m", runtime);
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(workDir.resolve("connect-worker.properties"))) {
            props.load(in);
        }
        return props;
    }

    @Test
    void theShippedWorkerPropertiesNameTheExtension() throws Exception {
        Properties shipped = new Properties();
        try (InputStream in = Files.newInputStream(SiteFiles.configFile("connect-worker.properties"))) {
            shipped.load(in);
        }
        assertThat(shipped.getProperty(ConnectWorker.REST_EXTENSIONS))
                .isEqualTo("io.jetstream.kafka.connect.common.rest.JetstreamRestExtension");
    }

    @Test
    void aJetstreamWorkerOnConnect4LoadsTheExtension() throws Exception {
        Properties props = written("a", List.of(jetstreamPlugins()), KAFKA_4);

        assertThat(props.getProperty(ConnectWorker.REST_EXTENSIONS))
                .isEqualTo("io.jetstream.kafka.connect.common.rest.JetstreamRestExtension");
    }

    @Test
    void aWorkerWithoutJetstreamPluginsAsMirrorMakersDoesNot() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("no-plugins"));

        assertThat(written("mm2", List.of(empty), KAFKA_4)).doesNotContainKey(ConnectWorker.REST_EXTENSIONS);
        assertThat(written("missing", List.of(dir.resolve("not-there")), KAFKA_4))
                .doesNotContainKey(ConnectWorker.REST_EXTENSIONS);
    }

    @Test
    void aConnect3WorkerDoesNotForItsRestApiIsNotJakarta() throws Exception {
        assertThat(written("old", List.of(jetstreamPlugins()), KAFKA_3)).doesNotContainKey(ConnectWorker.REST_EXTENSIONS);
    }
}
