package io.jetstream.kafka.testkit.site;

import kafka.Kafka;
import kafka.tools.StorageTool$;

/**
 * Entry point of a broker child process: formats the KRaft storage on first start (ignored when
 * already formatted, so a restart keeps its data) and then runs {@code kafka.Kafka}, exactly what
 * an operator's {@code kafka-storage.sh format} followed by {@code kafka-server-start.sh} does, in
 * one JVM instead of two.
 *
 * <p>Arguments: {@code <server.properties> <cluster id>}.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain <server.properties> <cluster-id>");
            System.exit(2);
        }
        int rc = StorageTool$.MODULE$.execute(
                new String[] {"format", "-t", args[1], "-c", args[0], "--ignore-formatted"}, System.out);
        if (rc != 0) {
            System.err.println("Formatting the storage failed with exit code " + rc);
            System.exit(rc);
        }
        Kafka.main(new String[] {args[0]});
    }
}
