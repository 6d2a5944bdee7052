package io.jetstream.kafka.launcher;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.ParseResult;

/** {@code ./jetstream} command lines in the test JVM: run (exit code and output) or only parsed. */
final class Launcher {

    /** What a run printed and returned. */
    record Outcome(int exitCode, String output) {

        /** The output with every run of white space one space: usage texts wrap lines where they like. */
        String text() {
            return output.replaceAll("\\s+", " ");
        }
    }

    private Launcher() {
    }

    /** Runs the command line as {@code ./jetstream} would; only for runs that stop before real work. */
    static Outcome run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = JetstreamCli.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Outcome(code, bytes.toString(StandardCharsets.UTF_8));
    }

    /** Parses the command line and returns the command it selects, with its options set; runs nothing. */
    static <T> T parse(Class<T> command, String... args) {
        ParseResult result = JetstreamCli.commandLine(new PrintStream(OutputStream.nullOutputStream()))
                .parseArgs(args);
        while (result.hasSubcommand()) {
            result = result.subcommand();
        }
        return command.cast(result.commandSpec().userObject());
    }
}
