package io.jetstream.kafka.testkit.link;

/**
 * A snapshot of a link's counters.
 *
 * @param bytesClientToTarget bytes written to the target since start
 * @param bytesTargetToClient bytes written back to clients since start
 * @param connectionsAccepted connections accepted and forwarded since start
 * @param connectionsRefused  connections closed at once because the link was cut or the target was unreachable
 * @param currentConnections  connections open now
 */
public record LinkStats(
        long bytesClientToTarget,
        long bytesTargetToClient,
        long connectionsAccepted,
        long connectionsRefused,
        int currentConnections) {

    public long bytes(LinkDirection direction) {
        return direction == LinkDirection.CLIENT_TO_TARGET ? bytesClientToTarget : bytesTargetToClient;
    }
}
