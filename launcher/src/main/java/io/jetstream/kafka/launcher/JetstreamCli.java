package io.jetstream.kafka.launcher;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code ./jetstream} command line: one subcommand per job. Exit codes: 0 success, 1 the job
 * ran and failed (for the demo: its RESULT line does not hold), 2 bad usage or configuration.
 */
public final class JetstreamCli {

    /** A subcommand: runs with the arguments after its name and returns the exit code. */
    interface Command {
        int run(String[] args, PrintStream out) throws Exception;

        String summary();
    }

    private JetstreamCli() {
    }

    static Map<String, Command> commands() {
        Map<String, Command> commands = new LinkedHashMap<>();
        commands.put("demo", new DemoCommand());
        commands.put("sites", new SitesCommand());
        commands.put("relay", new RelayCommand());
        commands.put("bench", new BenchCommand());
        commands.put("offsets", new OffsetsCommand());
        return commands;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    static int run(String[] args, PrintStream out) {
        Map<String, Command> commands = commands();
        if (args.length == 0 || "help".equals(args[0]) || "--help".equals(args[0]) || "-h".equals(args[0])) {
            usage(out, commands);
            return args.length == 0 ? 2 : 0;
        }
        Command command = commands.get(args[0]);
        if (command == null) {
            out.println("Unknown command '" + args[0] + "'.");
            usage(out, commands);
            return 2;
        }
        try {
            return command.run(Arrays.copyOfRange(args, 1, args.length), out);
        } catch (UsageException e) {
            out.println(e.getMessage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println(args[0] + " interrupted");
            return 1;
        } catch (Exception e) {
            out.println(args[0] + " failed: " + e);
            e.printStackTrace(out);
            return 1;
        }
    }

    private static void usage(PrintStream out, Map<String, Command> commands) {
        out.println("usage: ./jetstream <command> [options]");
        out.println();
        commands.forEach((name, command) -> out.printf("  %-8s %s%n", name, command.summary()));
    }

    /** A bad option or argument; its message is shown as is, with exit code 2. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
