package io.jetstream.kafka.testkit.site;

import java.util.List;
import java.util.Objects;

/**
 * Where a child process runs: the address its listeners bind to and advertise, and the command
 * prefix that puts it on its host (for a network-namespace host {@code ip netns exec js-a1}; the
 * exec keeps the process id, so the child's {@code /proc/<pid>} is the JVM's own).
 *
 * @param address       IP address the process binds its listeners to and advertises
 * @param commandPrefix words put before {@code java ...}; empty to run on this machine directly
 */
public record HostPlacement(String address, List<String> commandPrefix) {

    /** This machine's loopback interface, no prefix: where the kit ran everything before hosts existed. */
    public static final HostPlacement LOOPBACK = new HostPlacement("127.0.0.1", List.of());

    public HostPlacement {
        Objects.requireNonNull(address, "address");
        commandPrefix = List.copyOf(commandPrefix);
        if (address.isBlank()) {
            throw new IllegalArgumentException("host address must not be blank");
        }
    }

    public static HostPlacement of(String address, List<String> commandPrefix) {
        return new HostPlacement(address, commandPrefix);
    }
}
