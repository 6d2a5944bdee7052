package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and removes everything a network with a given prefix creates, whether this JVM built it or a crashed one did:
 * the namespaces ({@code <prefix>-wan}, {@code <prefix>-a1}, ...), and in the root namespace the two bridges and the
 * hosts' LAN ports. Names are matched exactly ({@link AddressPlan#ownsNamespace}, {@link AddressPlan#ownsRootLink}), so
 * another prefix's network and the machine's own interfaces are never touched.
 *
 * <p>Processes still running inside those namespaces (a delay line or a broker left behind) would keep a deleted
 * namespace, its interfaces and its addresses alive, so they are terminated first, by pid: SIGTERM, then SIGKILL after
 * {@link #GRACE}. Every step tolerates what is already gone, so removal is idempotent.
 */
final class Leftovers {

    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);
    static final Duration GRACE = Duration.ofSeconds(3);

    private final CommandRunner runner;

    Leftovers(CommandRunner runner) {
        this.runner = runner;
    }

    /** Whether anything of the prefix exists. */
    boolean exist(String prefix) throws IOException, InterruptedException {
        return !namespaces(prefix).isEmpty() || !rootLinks(prefix).isEmpty();
    }

    /** Removes everything of the prefix; returns the names removed (empty when there was nothing). */
    List<String> remove(String prefix) throws IOException, InterruptedException {
        List<String> removed = new ArrayList<>();
        List<String> namespaces = namespaces(prefix);
        terminateProcesses(namespaces);
        for (String namespace : namespaces) {
            CommandRunner.Result result = runner.execute(List.of("ip", "netns", "delete", namespace),
                    CommandRunner.DEFAULT_TIMEOUT);
            if (!result.succeeded() && namespaces(prefix).contains(namespace)) {
                throw new IOException("Cannot delete namespace " + namespace + ": " + result.stderr().strip());
            }
            removed.add("namespace " + namespace);
        }
        // Deleting a host namespace destroys its veth pairs asynchronously; delete the root ends now, so that the
        // names are free when this returns.
        for (String link : rootLinks(prefix)) {
            CommandRunner.Result result = runner.execute(List.of("ip", "link", "delete", "dev", link),
                    CommandRunner.DEFAULT_TIMEOUT);
            if (!result.succeeded() && rootLinks(prefix).contains(link)) {
                throw new IOException("Cannot delete link " + link + ": " + result.stderr().strip());
            }
            removed.add("link " + link);
        }
        return removed;
    }

    List<String> namespaces(String prefix) throws IOException, InterruptedException {
        return parseNamespaces(runner.run(List.of("ip", "netns", "list"))).stream()
                .filter(name -> AddressPlan.ownsNamespace(prefix, name)).toList();
    }

    List<String> rootLinks(String prefix) throws IOException, InterruptedException {
        return parseLinkNames(runner.run(List.of("ip", "-o", "link", "show"))).stream()
                .filter(name -> AddressPlan.ownsRootLink(prefix, name)).toList();
    }

    /**
     * Terminates every process whose network namespace is one of {@code namespaces} (never this JVM): all are sent
     * SIGTERM at once, then each gets what is left of {@link #GRACE} before SIGKILL.
     */
    void terminateProcesses(List<String> namespaces) throws IOException, InterruptedException {
        List<ProcessHandle> processes = new ArrayList<>();
        for (String namespace : namespaces) {
            List<ProcessHandle> inside = parsePids(runner.run(List.of("ip", "netns", "pids", namespace))).stream()
                    .filter(pid -> pid != ProcessHandle.current().pid())
                    .map(ProcessHandle::of).flatMap(Optional::stream).filter(ProcessHandle::isAlive).toList();
            if (!inside.isEmpty()) {
                log.warn("Terminating {} process(es) still running in namespace {}: {}", inside.size(), namespace,
                        inside.stream().map(Leftovers::describe).toList());
                processes.addAll(inside);
            }
        }
        processes.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (ProcessHandle process : processes) {
            if (!awaitExit(process, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                log.warn("Process {} ignored SIGTERM for {} ms; sending SIGKILL", process.pid(), GRACE.toMillis());
                process.destroyForcibly();
                awaitExit(process, GRACE);
            }
        }
    }

    /** Names from {@code ip netns list}: {@code js-a1 (id: 3)} or just {@code js-a1}, one a line. */
    static List<String> parseNamespaces(String output) {
        return output.lines().map(String::strip).filter(line -> !line.isEmpty())
                .map(line -> line.split("\\s+", 2)[0]).toList();
    }

    /** Names from {@code ip -o link show}: {@code 12: js-a1@if2: <...} gives {@code js-a1}. */
    static List<String> parseLinkNames(String output) {
        List<String> names = new ArrayList<>();
        for (String line : output.lines().toList()) {
            String[] fields = line.split(":\\s*", 3);
            if (fields.length >= 2 && !fields[1].isBlank()) {
                String name = fields[1].strip();
                int at = name.indexOf('@');
                names.add(at >= 0 ? name.substring(0, at) : name);
            }
        }
        return names;
    }

    /** Pids from {@code ip netns pids}, one a line. */
    static List<Long> parsePids(String output) {
        return output.lines().map(String::strip).filter(line -> line.matches("[0-9]+")).map(Long::parseLong).toList();
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) throws InterruptedException {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !process.isAlive();
        }
    }

    private static String describe(ProcessHandle process) {
        String command = process.info().commandLine().orElse(process.info().command().orElse("?"));
        return process.pid() + " " + (command.length() > 160 ? command.substring(0, 160) + "..." : command);
    }
}
