package io.jetstream.kafka.relay.config;

import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigException;

/** A relay configuration with one or more problems; all of them are reported at once. */
public class RelayConfigException extends ConfigException {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    public RelayConfigException(String source, List<ConfigProblem> problems) {
        super(describe(source, problems));
        this.problems = List.copyOf(problems);
    }

    /** A single problem not tied to one key, e.g. an unreadable file. */
    public RelayConfigException(String source, String message, Throwable cause) {
        super(source + ": " + message);
        initCause(cause);
        this.problems = List.of(new ConfigProblem("", message));
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    private static String describe(String source, List<ConfigProblem> problems) {
        return problems.stream().map(p -> "  - " + p.message()).collect(Collectors.joining("\n",
                "Invalid relay configuration " + source + " (" + problems.size()
                        + (problems.size() == 1 ? " problem" : " problems") + "):\n", ""));
    }
}
