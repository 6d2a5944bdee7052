package io.jetstream.kafka.launcher;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The {@code ./jetstream} command line: one picocli subcommand per job. Exit codes: 0 success, 1 the
 * job ran and failed (for the demo: its RESULT line does not hold), 2 bad usage or configuration
 * (picocli's message, naming the option, and the command's usage). Everything the launcher prints,
 * usage and errors included, goes to the one stream it is given (standard output).
 */
@Command(name = "./jetstream", customSynopsis = "./jetstream <command> [options]",
        description = "JetStream for Kafka: a demo, local sites, a relay, the WAN benchmark, offset translation, the"
                + " decisions of a running deployment.",
        footer = {"", "./jetstream <command> --help lists a command's options. Exit codes: 0 success, 1 the job ran"
                + " and failed, 2 bad usage or configuration."})
public final class JetstreamCli implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private HelpOption help;

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs {@code args} as {@code ./jetstream} would, printing to {@code out}; the exit code (in-process runs, tests). */
    public static int run(String[] args, PrintStream out) {
        return commandLine(out).execute(args);
    }

    /** The launcher's command tree, printing to {@code out}. */
    static CommandLine commandLine(PrintStream out) {
        CommandLine cli = new CommandLine(new JetstreamCli())
                .addSubcommand(new DemoCommand(out))
                .addSubcommand(new SitesCommand(out))
                .addSubcommand(new RelayCommand(out))
                .addSubcommand(new BenchCommand(out))
                .addSubcommand(new CommandLine(new OffsetsCommand()).addSubcommand(new OffsetsTranslateCommand(out)))
                .addSubcommand(new ExplainCommand(out))
                .addSubcommand(new HelpCommand());
        // Set after the subcommands are added: picocli hands these settings down to them.
        PrintWriter writer = new PrintWriter(out, true);
        cli.setOut(writer)
                .setErr(writer)
                .setOverwrittenOptionsAllowed(true) // the last value given wins, as before picocli
                .setExpandAtFiles(false)           // an argument starting with @ is that argument, not a file to read
                .setUsageHelpAutoWidth(true)       // usage as wide as the terminal
                .setExecutionExceptionHandler(JetstreamCli::failed);
        // ./jetstream relay hands every argument, --help included, to the relay's own command line.
        cli.getSubcommands().get("relay").setStopAtUnmatched(true);
        return cli;
    }

    /** {@code ./jetstream} alone: the usage, as bad usage. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return ExitCode.USAGE;
    }

    /** A command that failed while running (not bad usage): what failed, with the trace, and exit code 1. */
    private static int failed(Exception e, CommandLine command, ParseResult parsed) {
        PrintWriter out = command.getErr();
        String name = parsed.hasSubcommand() ? parsed.subcommand().commandSpec().name() : command.getCommandName();
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            out.println(name + " interrupted");
        } else {
            out.println(name + " failed: " + e);
            e.printStackTrace(out);
        }
        out.flush();
        return ExitCode.SOFTWARE;
    }
}
