package io.jetstream.kafka.launcher;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.jetstream.kafka.relay.RelayMain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code ./jetstream relay --config FILE [--check]}: runs one relay in the foreground, exactly as
 * {@code java -jar jetstream-relay-node-*-all.jar} does (same options, same exit codes: 0 stopped,
 * 1 failed to start, 2 bad arguments or configuration). Ctrl-C or SIGTERM drains and stops it.
 * The demo starts its relays this way.
 *
 * <p>The arguments are {@link RelayMain}'s, passed on untouched (the launcher sets picocli to stop
 * at the first one, {@code --help} included), so the two command lines cannot drift apart.
 */
@Command(name = "relay",
        description = {"run a relay node in the foreground (--config FILE; see docs/relay.md)",
            "Its options are the standalone relay's: --config FILE, --check (validate and exit), --help."})
final class RelayCommand implements Callable<Integer> {

    private final PrintStream out;

    /** Everything after {@code relay}, for {@link RelayMain} to parse. */
    @Unmatched
    private List<String> arguments = new ArrayList<>();

    RelayCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        // The relay logs at INFO (ports, connections, drain) like the standalone jar, not at the launcher's WARN.
        RelayMain.useBundledLogging();
        return RelayMain.run(arguments.toArray(String[]::new), out, System.err);
    }
}
