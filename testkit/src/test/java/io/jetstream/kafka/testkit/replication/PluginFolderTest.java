package io.jetstream.kafka.testkit.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginFolderTest {

    @TempDir
    Path target;

    private Path plugin(String name) throws IOException {
        Path outer = target.resolve(name);
        Files.createDirectories(outer.resolve(name).resolve("lib"));
        return outer;
    }

    @Test
    void theFolderOfThePackagedPluginIsWhatGoesIntoPluginPath() throws IOException {
        Path outer = plugin("jetstream-connect-sink-1.0.0");

        assertThat(ReplicationEnvironment.pluginFolder(target, "connect-sink")).isEqualTo(outer);
    }

    @Test
    void aPluginFolderThatAnOlderBuildLeftBesideThisOneIsRefusedNamingIt() throws IOException {
        Path outer = plugin("jetstream-connect-sink-1.0.0");
        // an older assembly layout wrote its plugin folder into the same place
        Files.createDirectories(outer.resolve("jetstream-connect-sink").resolve("lib"));

        assertThatThrownBy(() -> ReplicationEnvironment.pluginFolder(target, "connect-sink"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("also holds [jetstream-connect-sink], left by an older build")
                .hasMessageContaining("mvn clean package");
    }
}
