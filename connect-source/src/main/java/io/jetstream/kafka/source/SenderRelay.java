package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.source.sender.Relay;
import io.jetstream.kafka.source.sender.ReplicationSender;
import io.jetstream.kafka.transport.PeerClient;

/**
 * One relay as the {@link ReplicationSender} sees it: a {@link PeerClient} made by
 * {@link RelayClients}, whose frames and losses go to the {@link Relay.Inbound} it was made with
 * (the sender that opened it, {@link Relay.Opener}). The client starts after the sender is made,
 * so nothing arrives before.
 */
final class SenderRelay implements Relay, RelayClients.Connection {

    private final boolean preferred;
    private final Relay.Inbound inbound;
    private PeerClient client;

    /**
     * @param preferred whether the relay is in the preferred tier ({@link RelayPreference})
     * @param inbound   where the relay's frames and its loss go
     */
    SenderRelay(boolean preferred, Relay.Inbound inbound) {
        this.preferred = preferred;
        this.inbound = inbound;
    }

    @Override
    public void bind(PeerClient client) {
        this.client = client;
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        inbound.onFrame(this, frame);
    }

    @Override
    public void onDisconnected(PeerClient c, Throwable cause) {
        inbound.onRelayLost(this);
    }

    @Override
    public boolean preferred() {
        return preferred;
    }

    @Override
    public String name() {
        return client.remote().toString();
    }

    @Override
    public boolean isReady() {
        return client.isReady() && client.isWritable();
    }

    @Override
    public boolean send(Frame frame) {
        return client.send(frame);
    }

    @Override
    public int maxBatchPayloadBytes() {
        return client.peerMaxFrameBytes() > 0 ? client.maxBatchPayloadBytes() : 0;
    }

    @Override
    public long rttNanos() {
        return client.isReady() ? client.rtt().toNanos() : 0;
    }
}
