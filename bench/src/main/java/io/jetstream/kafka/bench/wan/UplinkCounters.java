package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the byte counters of the core namespace's interfaces, where every host's uplink ends: a packet a host sends to
 * the other site is received by its {@code wan-<host>} peer in the core. The delay line lives in the core namespace,
 * so its {@code /proc/<pid>/net/dev} is the core's: one file read, no process started, cheap enough to poll every
 * host twice a second. Should the delay line be gone, {@code ip netns exec <core> cat /proc/net/dev} answers instead.
 * Thread-safe.
 */
final class UplinkCounters {

    private static final Logger log = LoggerFactory.getLogger(UplinkCounters.class);

    private final CommandRunner runner;
    private final String coreNamespace;
    private final Supplier<DelayLineProcess> delayLine;

    UplinkCounters(CommandRunner runner, String coreNamespace, Supplier<DelayLineProcess> delayLine) {
        this.runner = runner;
        this.coreNamespace = coreNamespace;
        this.delayLine = delayLine;
    }

    /** The core's counters, which must include {@code expectedInterface} (else they are another namespace's). */
    NetDevCounters read(String expectedInterface) throws IOException, InterruptedException {
        DelayLineProcess current = delayLine.get();
        if (current != null && current.isAlive()) {
            try {
                NetDevCounters counters = NetDevCounters.parse(
                        Files.readAllLines(Path.of("/proc", Long.toString(current.pid()), "net", "dev")));
                if (counters.has(expectedInterface)) {
                    return counters;
                }
            } catch (IOException e) {
                log.debug("The delay line's /proc entry is unreadable; asking inside {}", coreNamespace, e);
            }
        }
        NetDevCounters counters = NetDevCounters.parse(runner.run(
                List.of("ip", "netns", "exec", coreNamespace, "cat", "/proc/net/dev")).lines().toList());
        if (!counters.has(expectedInterface)) {
            throw new IOException("Interface " + expectedInterface + " is missing from namespace " + coreNamespace);
        }
        return counters;
    }
}
