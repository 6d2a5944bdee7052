package io.jetstream.kafka.launcher;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help} for every {@code ./jetstream} command (a picocli mixin): prints the
 * command's usage and exits 0. Not picocli's standard help mixin, which adds a {@code --version}
 * the launcher has nothing to print for.
 */
final class HelpOption {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this usage and exit")
    private boolean help;
}
