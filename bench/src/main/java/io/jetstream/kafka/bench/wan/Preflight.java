package io.jetstream.kafka.bench.wan;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides whether this machine can build a {@link WanNetwork}, and if not, says why in one sentence. Cheap checks come
 * first (Linux, root, {@code ip}/{@code tc}/{@code gcc}/{@code sh} on the PATH, {@code /dev/net/tun}); then, because
 * being root is not the same as holding CAP_NET_ADMIN (a container may say uid 0 and still refuse), a throwaway
 * namespace is built with every kind of device the network uses (bridge, veth, TUN, tbf qdisc) and deleted again.
 * The answer is computed once per JVM.
 */
final class Preflight {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    private static volatile Optional<String> cached;

    private Preflight() {
    }

    /** Empty when the network can be built; else the reason. Memoized, except when interrupted. */
    static Optional<String> unavailableReason() {
        Optional<String> reason = cached;
        if (reason == null) {
            synchronized (Preflight.class) {
                reason = cached;
                if (reason == null) {
                    try {
                        reason = check(new CommandRunner());
                        cached = reason;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return Optional.of("interrupted while checking the machine");
                    }
                }
            }
        }
        return reason;
    }

    static Optional<String> check(CommandRunner runner) throws InterruptedException {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of("network namespaces need Linux; this is " + System.getProperty("os.name"));
        }
        Optional<String> uid = effectiveUid();
        if (uid.isEmpty() || !uid.get().equals("0")) {
            return Optional.of("building network namespaces needs root; effective uid is " + uid.orElse("unknown"));
        }
        for (String tool : List.of("ip", "tc", "gcc", "sh")) {
            if (onPath(tool).isEmpty()) {
                return Optional.of("'" + tool + "' is not on the PATH");
            }
        }
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            return Optional.of("/dev/net/tun is missing (the delay line needs a TUN device)");
        }
        return probe(runner);
    }

    /** Builds and deletes a namespace holding a bridge, a veth pair, a TUN and a tbf qdisc. */
    private static Optional<String> probe(CommandRunner runner) throws InterruptedException {
        String namespace = "jswanprobe" + ProcessHandle.current().pid();
        List<List<String>> commands = List.of(
                List.of("ip", "netns", "add", namespace),
                List.of("ip", "-n", namespace, "link", "set", "dev", "lo", "up"),
                List.of("ip", "-n", namespace, "link", "add", "name", "br0", "type", "bridge"),
                List.of("ip", "-n", namespace, "link", "add", "name", "v0", "type", "veth", "peer", "name", "v1"),
                List.of("ip", "-n", namespace, "tuntap", "add", "dev", "t0", "mode", "tun"),
                List.of("tc", "-n", namespace, "qdisc", "add", "dev", "lo", "root", "tbf",
                        "rate", "1mbit", "burst", "32kb", "limit", "64kb"));
        try {
            for (List<String> command : commands) {
                runner.run(command, PROBE_TIMEOUT);
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("this machine cannot build the network: " + e.getMessage());
        } finally {
            try {
                runner.execute(List.of("ip", "netns", "delete", namespace), PROBE_TIMEOUT);
            } catch (IOException e) {
                // the namespace was never created, or "ip" itself is gone: nothing to clean up
            }
        }
    }

    private static Optional<String> effectiveUid() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Uid:"))
                    .map(line -> line.split("\\s+"))
                    .filter(fields -> fields.length > 2)
                    .map(fields -> fields[2])
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The executable {@code name} on the PATH, if any. */
    static Optional<Path> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        for (String directory : path.split(File.pathSeparator)) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
