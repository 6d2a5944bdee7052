package io.jetstream.kafka.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./jetstream offsets}: consumer-group offsets between the sites; its one subcommand is
 * {@code translate} ({@link OffsetsTranslateCommand}). Alone it is bad usage (exit 2).
 */
@Command(name = "offsets",
        description = "translate a consumer group's positions between the sites (translate --group G --topic T ...)")
final class OffsetsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private HelpOption help;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "offsets needs a subcommand: translate");
    }
}
