package io.jetstream.kafka.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

/** Opens the network a plan asks for: namespaces when possible (or required), else the loopback emulator. */
final class Networks {

    private Networks() {
    }

    static BenchNetwork open(BenchPlan plan, Path workDir) {
        long bytesPerSecond = plan.uplinkBitsPerSecond() / 8;
        if (plan.network() == BenchPlan.NetworkMode.LOOPBACK) {
            return new LoopbackNetwork(bytesPerSecond, plan.oneWayDelay(), "--network loopback was given");
        }
        Optional<String> unavailable = namespacesUnavailable();
        if (unavailable.isPresent()) {
            if (plan.network() == BenchPlan.NetworkMode.NAMESPACES) {
                throw new IllegalStateException("--network namespaces: " + unavailable.get());
            }
            return new LoopbackNetwork(bytesPerSecond, plan.oneWayDelay(), unavailable.get());
        }
        return createNamespaces(plan, workDir);
    }

    /** Why the namespace WAN cannot be built here; empty when it can. */
    static Optional<String> namespacesUnavailable() {
        return NamespaceNetwork.unavailableReason();
    }

    private static BenchNetwork createNamespaces(BenchPlan plan, Path workDir) {
        try {
            return NamespaceNetwork.create(plan.uplinkBitsPerSecond(), plan.oneWayDelay(), plan.congestionControl(),
                    workDir.resolve("wan"));
        } catch (IOException e) {
            throw new UncheckedIOException("building the namespace WAN failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the namespace WAN", e);
        }
    }
}
