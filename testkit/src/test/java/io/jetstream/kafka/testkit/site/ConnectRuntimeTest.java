package io.jetstream.kafka.testkit.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectRuntimeTest {

    @TempDir
    Path lib;

    private void jars(String... names) throws IOException {
        for (String name : names) {
            Files.createFile(lib.resolve(name));
        }
    }

    @Test
    void aKafka3LibraryFolderRunsItsOwnVersionAndLogsThroughReload4j() throws Exception {
        jars("connect-runtime-3.9.2.jar", "kafka-clients-3.9.2.jar", "reload4j-1.2.25.jar", "notes.txt");
        ConnectRuntime runtime = ConnectRuntime.fromFolder(lib);
        assertThat(runtime.version()).isEqualTo("3.9.2");
        assertThat(runtime.logging()).isEqualTo(ConnectRuntime.Logging.LOG4J1);
        assertThat(runtime.classpath().split(File.pathSeparator)).hasSize(3)
                .allMatch(entry -> entry.endsWith(".jar"));
        assertThat(runtime.loggingFlag(lib.resolve("worker"))).startsWith("-Dlog4j.configuration=file:");
        assertThat(lib.resolve("worker").resolve("log4j.properties")).exists();
    }

    @Test
    void aFolderWithoutReload4jLogsThroughLog4j2() throws Exception {
        jars("connect-runtime-4.3.1.jar", "log4j-core-2.25.5.jar");
        ConnectRuntime runtime = ConnectRuntime.fromFolder(lib);
        assertThat(runtime.version()).isEqualTo("4.3.1");
        assertThat(runtime.logging()).isEqualTo(ConnectRuntime.Logging.LOG4J2);
        assertThat(runtime.loggingFlag(lib.resolve("worker"))).startsWith("-Dlog4j2.configurationFile=file:");
    }

    @Test
    void aFolderWithoutConnectRuntimeOrNoFolderIsRefusedNamingIt() throws Exception {
        jars("kafka-clients-3.9.2.jar");
        assertThatThrownBy(() -> ConnectRuntime.fromFolder(lib)).isInstanceOf(IOException.class)
                .hasMessageContaining("connect-runtime").hasMessageContaining(lib.toString());
        Path missing = lib.resolve("missing");
        assertThatThrownBy(() -> ConnectRuntime.fromFolder(missing)).isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString()).hasMessageContaining("connect-3x-worker");
    }

    @Test
    void theProjectsRuntimeIsTheKafkaItBuildsAgainst() {
        ConnectRuntime runtime = ConnectRuntime.project();
        assertThat(runtime.version()).isEqualTo(org.apache.kafka.common.utils.AppInfoParser.getVersion());
        assertThat(runtime.logging()).isEqualTo(ConnectRuntime.Logging.LOG4J2);
    }
}
