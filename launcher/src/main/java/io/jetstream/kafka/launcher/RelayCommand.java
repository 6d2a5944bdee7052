package io.jetstream.kafka.launcher;

import java.io.PrintStream;

import io.jetstream.kafka.relay.RelayMain;

/**
 * {@code ./jetstream relay --config FILE [--check]}: runs one relay in the foreground, exactly as
 * {@code java -jar jetstream-relay-node-*-all.jar} does (same options, same exit codes: 0 stopped,
 * 1 failed to start, 2 bad arguments or configuration). Ctrl-C or SIGTERM drains and stops it.
 * The demo starts its relays this way.
 */
final class RelayCommand implements JetstreamCli.Command {

    @Override
    public String summary() {
        return "run a relay node in the foreground (--config FILE; see docs/relay.md)";
    }

    @Override
    public int run(String[] args, PrintStream out) {
        // The relay logs at INFO (ports, connections, drain) like the standalone jar, not at the launcher's WARN.
        RelayMain.useBundledLogging();
        return RelayMain.run(args, out, System.err);
    }
}
