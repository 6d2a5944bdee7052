package io.jetstream.kafka.core.environment;

/**
 * How busy the processors are, as the JVM that runs the task sees them (its container's share where it
 * has one). Unknown figures are NaN.
 *
 * @param processCores   cores the JVM kept busy recently (its CPU load times the cores available)
 * @param availableCores cores available to the JVM
 * @param machineLoad    fraction of the machine's (or container's) cores busy recently, 0 to 1
 */
public record CpuLoad(double processCores, int availableCores, double machineLoad) {

    /** Nothing known. */
    public static final CpuLoad UNKNOWN = new CpuLoad(Double.NaN, 0, Double.NaN);

    /** The JVM's busy cores over those available, 0 to 1; NaN when unknown. */
    public double processLoad() {
        return availableCores > 0 ? processCores / availableCores : Double.NaN;
    }
}
