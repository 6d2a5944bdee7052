package io.jetstream.kafka.launcher;

import java.math.BigDecimal;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The checks picocli leaves to the command: a number within its range, a word from a fixed set.
 * A failure is a {@link ParameterException}, so picocli prints it with the command's usage and
 * exits 2; its message names the option, the value and what the option accepts.
 */
final class OptionChecks {

    private OptionChecks() {
    }

    /** Fails unless {@code min <= value <= max} (so NaN, which Java's number parsing accepts, fails too). */
    static void requireWithin(CommandLine command, String option, double value, double min, double max) {
        boolean within = value >= min && value <= max;
        if (!within) {
            throw new ParameterException(command, option + ": " + plain(value) + " is not between " + plain(min)
                    + " and " + plain(max));
        }
    }

    /** Returns {@code value} if it is one of {@code allowed} or null (the option not given), else fails. */
    static String requireOneOf(CommandLine command, String option, String value, String... allowed) {
        if (value == null) {
            return null;
        }
        for (String candidate : allowed) {
            if (candidate.equals(value)) {
                return value;
            }
        }
        throw new ParameterException(command, option + ": '" + value + "' is not one of "
                + String.join(", ", allowed));
    }

    /** 3 rather than 3.0, 0.01 rather than 1.0E-2: numbers as the user would type them. */
    private static String plain(double value) {
        if (!Double.isFinite(value)) {
            return Double.toString(value);
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
