package io.jetstream.kafka.bench.wan;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Byte counters of a namespace's interfaces, parsed from its {@code /proc/net/dev}. Reading the core namespace's copy
 * (through {@code /proc/<pid>/net/dev} of the delay line, which lives there) costs one file read and no process, which
 * is what makes {@link WanNetwork#uplinkTxBytes} cheap enough to poll.
 *
 * @param rxBytes bytes received per interface
 * @param txBytes bytes sent per interface
 */
record NetDevCounters(Map<String, Long> rxBytes, Map<String, Long> txBytes) {

    NetDevCounters {
        rxBytes = Map.copyOf(rxBytes);
        txBytes = Map.copyOf(txBytes);
    }

    /**
     * Parses the lines of {@code /proc/net/dev}: two header lines, then {@code name: rx_bytes rx_packets ... (8
     * receive fields) tx_bytes ...}. Lines that are not interface lines are skipped.
     */
    static NetDevCounters parse(List<String> lines) {
        Map<String, Long> rx = new HashMap<>();
        Map<String, Long> tx = new HashMap<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            String[] fields = line.substring(colon + 1).trim().split("\\s+");
            if (name.isEmpty() || fields.length < 9) {
                continue;
            }
            try {
                rx.put(name, Long.parseLong(fields[0]));
                tx.put(name, Long.parseLong(fields[8]));
            } catch (NumberFormatException e) {
                // a header line that happens to contain a colon: not an interface
            }
        }
        return new NetDevCounters(rx, tx);
    }

    boolean has(String interfaceName) {
        return rxBytes.containsKey(interfaceName);
    }
}
