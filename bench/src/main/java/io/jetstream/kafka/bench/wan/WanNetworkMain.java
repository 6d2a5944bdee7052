package io.jetstream.kafka.bench.wan;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Brings a {@link WanNetwork} up or down by hand, as root:
 * <pre>
 * java -cp &lt;bench classpath&gt; io.jetstream.kafka.bench.wan.WanNetworkMain up [--prefix js] [--delay-ms 25] [--mbit 40] [--extra-delay-ms a3=40]
 * java -cp &lt;bench classpath&gt; io.jetstream.kafka.bench.wan.WanNetworkMain down [--prefix js]
 * </pre>
 * {@code up} prints the hosts and stays up until Ctrl-C (or SIGTERM), then removes the network; {@code down} removes
 * the leftovers of a run that could not clean up (killed with SIGKILL, machine-level crash of the JVM), and refuses to
 * touch a network whose owner is still running. Exit codes: 0 done, 1 failed, 2 bad usage.
 */
@Command(name = "wan-network", mixinStandardHelpOptions = true,
        description = "Kernel-level two-site WAN emulation (network namespaces, tc tbf, a TUN delay line).",
        subcommands = {WanNetworkMain.Up.class, WanNetworkMain.Down.class})
public final class WanNetworkMain implements Runnable {

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        // Without a log4j2 configuration on the class path only errors would show; the network's steps are the point.
        Configurator.setLevel(WanNetwork.class.getPackageName(), Level.INFO);
        System.exit(new CommandLine(new WanNetworkMain())
                .setExecutionExceptionHandler((e, commandLine, parsed) -> {
                    commandLine.getErr().println(commandLine.getCommandName() + " failed: " + e.getMessage());
                    return commandLine.getCommandSpec().exitCodeOnExecutionException();
                })
                .execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command: up or down");
    }

    @Command(name = "up", mixinStandardHelpOptions = true,
            description = "Build the network, print its hosts, keep it up until Ctrl-C, then remove it.")
    static final class Up implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = "--prefix", defaultValue = "js", description = "Name prefix (default: ${DEFAULT-VALUE}).")
        private String prefix;

        @Option(names = "--delay-ms", defaultValue = "25", description = "One-way delay in ms (default: ${DEFAULT-VALUE}).")
        private long delayMillis;

        @Option(names = "--mbit", defaultValue = "40", description = "Uplink cap per host in Mbit/s (default: ${DEFAULT-VALUE}).")
        private double megabits;

        @Option(names = "--sources", defaultValue = "3", description = "Hosts at site A (default: ${DEFAULT-VALUE}).")
        private int sources;

        @Option(names = "--destinations", defaultValue = "2", description = "Hosts at site B (default: ${DEFAULT-VALUE}).")
        private int destinations;

        @Option(names = "--cc", defaultValue = "bbr", description = "TCP congestion control (default: ${DEFAULT-VALUE}).")
        private String congestionControl;

        @Option(names = "--extra-delay-ms", split = ",", paramLabel = "HOST=MS",
                description = "Extra one-way delay of the packets a host sends to the other site, e.g. a2=10,a3=40.")
        private Map<String, Long> extraDelayMillis = new LinkedHashMap<>();

        @Option(names = "--work-dir", defaultValue = "${java.io.tmpdir}/jetstream-wan",
                description = "Where the delay line is compiled and logs (default: ${DEFAULT-VALUE}).")
        private Path workDir;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            WanSpec wanSpec;
            try {
                wanSpec = new WanSpec(prefix, sources, destinations, Math.round(megabits * 1_000_000),
                        Duration.ofMillis(delayMillis), congestionControl);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            // create() registers a shutdown hook: Ctrl-C or SIGTERM removes the network before the JVM exits. This one
            // waits for that removal (close() returns only once it is done) and reports the delay line's counters.
            for (Map.Entry<String, Long> extra : extraDelayMillis.entrySet()) {
                try {
                    WanNetwork.requireExtraDelay(wanSpec, Duration.ofMillis(extra.getValue()));
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), extra.getKey() + ": " + e.getMessage(),
                            e);
                }
            }
            WanNetwork network = WanNetwork.create(wanSpec, workDir);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                network.close();
                out.println("Removed WAN network '" + prefix + "'. Delay line: "
                        + network.delayLineStats().map(Object::toString).orElse("no counters"));
                out.flush();
            }, "wan-network-main-exit"));
            for (Map.Entry<String, Long> extra : extraDelayMillis.entrySet()) {
                network.setExtraDelay(extra.getKey(), Duration.ofMillis(extra.getValue()));
            }
            printHosts(out, network);
            out.printf("%nUp. Ctrl-C removes it (or, from elsewhere: kill %d).%n", ProcessHandle.current().pid());
            out.flush();
            new CountDownLatch(1).await();
            return 0;
        }

        private static void printHosts(PrintWriter out, WanNetwork network) {
            WanSpec spec = network.spec();
            out.printf("WAN network '%s': uplinks %.1f Mbit/s per host, one-way delay %d ms (RTT %d ms), %s%n",
                    spec.prefix(), spec.uplinkBitsPerSecond() / 1e6, spec.oneWayDelay().toMillis(),
                    2 * spec.oneWayDelay().toMillis(), spec.congestionControl());
            out.printf("%-5s %-5s %-12s %-15s %s%n", "host", "site", "namespace", "address", "extra delay");
            for (WanHost host : network.hosts()) {
                out.printf("%-5s %-5s %-12s %-15s %d ms%n", host.name(), host.site(), host.namespace(),
                        host.address(), network.extraDelay(host.name()).toMillis());
            }
            out.printf("root namespace: %s on site A's LAN, %s on site B's; delay line pid %d in namespace %s%n",
                    network.rootAddress(WanHost.SITE_A), network.rootAddress(WanHost.SITE_B), network.delayLinePid(),
                    network.coreNamespace());
            WanHost a1 = network.hosts(WanHost.SITE_A).get(0);
            WanHost b1 = network.hosts(WanHost.SITE_B).get(0);
            out.printf("try: %s ping -c 3 %s%n", String.join(" ", a1.commandPrefix()), b1.address());
        }
    }

    @Command(name = "down", mixinStandardHelpOptions = true,
            description = "Remove what a network with this prefix left behind (namespaces, bridges, processes in them).")
    static final class Down implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = "--prefix", defaultValue = "js", description = "Name prefix (default: ${DEFAULT-VALUE}).")
        private String prefix;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try {
                WanSpec.defaults().withPrefix(prefix);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            List<String> removed;
            try (WanLocks.Held owner = WanLocks.owner(prefix)) { // fails while the network's owner is alive
                removed = new Leftovers(new CommandRunner()).remove(prefix);
            }
            out.println(removed.isEmpty() ? "Nothing of '" + prefix + "' to remove." : "Removed " + removed);
            return 0;
        }
    }
}
