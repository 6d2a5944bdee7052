package io.jetstream.kafka.core.environment;

import java.util.List;
import java.util.Objects;

/**
 * The grid cell a deployment resembles ({@link GridCell#nearest}).
 *
 * @param cell      the nearest cell
 * @param index     its place in the list searched ({@link GridCell#GRID}: the {@code resembles-grid-cell} gauge)
 * @param distance  Euclidean distance over the axes' log2 ratios: 0 is the cell itself, 1 a factor 2 on one axis
 * @param differsOn the axes on which the deployment is further than {@link GridCell#DIFFERS_FACTOR} from
 *                  the cell, or not measured yet, in words ("uplink at least 12 Mbit/s measured")
 */
public record GridMatch(GridCell cell, int index, double distance, List<String> differsOn) {

    public GridMatch {
        Objects.requireNonNull(cell, "cell");
        differsOn = List.copyOf(differsOn);
    }
}
