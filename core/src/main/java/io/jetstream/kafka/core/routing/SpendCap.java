package io.jetstream.kafka.core.routing;

/**
 * Limits on money spent by a scheduler: in total since it started, and in any trailing window
 * (an hour by default, see {@link RouteSchedulerSettings#spendWindow()}). Infinite means no limit.
 */
public record SpendCap(double total, double perWindow) {

    public SpendCap {
        if (!(total >= 0) || !(perWindow >= 0)) {
            throw new IllegalArgumentException("spend caps must be >= 0, got total " + total + ", per window "
                    + perWindow);
        }
    }

    public static SpendCap none() {
        return new SpendCap(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY);
    }

    public static SpendCap total(double money) {
        return new SpendCap(money, Double.POSITIVE_INFINITY);
    }

    public static SpendCap perWindow(double money) {
        return new SpendCap(Double.POSITIVE_INFINITY, money);
    }
}
