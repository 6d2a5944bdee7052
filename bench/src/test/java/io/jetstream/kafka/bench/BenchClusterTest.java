package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchClusterTest {

    @TempDir
    Path dataDir;

    @Test
    void aTopicIsHeldWhileAPartitionFolderOfItsLiveOrRenamedForDeletionRemains() throws Exception {
        Files.createDirectories(dataDir.resolve("bench.d5.js-1route-again-0"));
        Files.createDirectories(dataDir.resolve("__consumer_offsets-3"));
        Files.writeString(dataDir.resolve("meta.properties"), "x");

        assertThat(BenchCluster.holds(dataDir, "bench.d5.js-1route"))
                .as("another topic whose name starts with this one's is not this one").isFalse();

        Path renamed = Files.createDirectories(dataDir.resolve("bench.d5.js-1route-1199.6f2c9e0b1d8a4e07-delete"));
        assertThat(BenchCluster.holds(dataDir, "bench.d5.js-1route")).isTrue();

        Files.delete(renamed);
        Files.createDirectories(dataDir.resolve("bench.d5.js-1route-0"));
        assertThat(BenchCluster.holds(dataDir, "bench.d5.js-1route")).isTrue();
        assertThat(BenchCluster.holds(dataDir.resolve("gone"), "bench.d5.js-1route"))
                .as("a broker folder that is not there holds nothing").isFalse();
    }
}
