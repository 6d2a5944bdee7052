package io.jetstream.kafka.bench.wan;

import java.io.IOException;
import java.util.List;

/**
 * What the root namespace already routes, so that a new network picks address slots nobody uses: the destination of
 * every IPv4 route in every table (a network's bridge addresses show up as {@code local} routes of table local).
 */
final class RootRoutes {

    private static final List<String> ROUTE_TYPES = List.of("unicast", "local", "broadcast", "multicast",
            "blackhole", "unreachable", "prohibit", "throw", "nat", "anycast");

    private RootRoutes() {
    }

    /** Destinations ({@code a.b.c.d/len}, {@code a.b.c.d} or {@code default}) of {@code ip -4 route show table all}. */
    static List<String> destinations(CommandRunner runner) throws IOException, InterruptedException {
        return runner.run(List.of("ip", "-4", "-o", "route", "show", "table", "all")).lines()
                .filter(line -> !line.isBlank()).map(RootRoutes::destination).toList();
    }

    /** {@code local 198.18.1.254 dev jsbrA ...} gives {@code 198.18.1.254}; {@code 10.0.0.0/8 via ...} the prefix. */
    static String destination(String routeLine) {
        String[] words = routeLine.strip().split("\\s+");
        boolean typed = words.length > 1 && ROUTE_TYPES.contains(words[0]);
        return typed ? words[1] : words[0];
    }
}
