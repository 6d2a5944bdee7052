package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.transport.PeerClient;
import io.netty.util.ReferenceCountUtil;

/**
 * One relay as the {@link ReplicationSender} sees it: a {@link PeerClient} made by
 * {@link RelayClients}, whose frames and losses go to the sender it is
 * {@linkplain #deliverTo handed to}. Frames that arrive before that (none should: the clients start
 * after the sender exists) are released.
 */
final class SenderRelay implements ReplicationSender.Relay, RelayClients.Connection {

    private final boolean preferred;
    private PeerClient client;
    private volatile ReplicationSender sender;

    /** @param preferred whether the relay is in the preferred tier ({@link RelayPreference}) */
    SenderRelay(boolean preferred) {
        this.preferred = preferred;
    }

    /** The sender this relay's frames and losses go to; set before the clients start. */
    void deliverTo(ReplicationSender sender) {
        this.sender = sender;
    }

    @Override
    public void bind(PeerClient client) {
        this.client = client;
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        ReplicationSender to = sender;
        if (to == null) {
            ReferenceCountUtil.release(frame);
            return;
        }
        to.onFrame(this, frame);
    }

    @Override
    public void onDisconnected(PeerClient c, Throwable cause) {
        ReplicationSender to = sender;
        if (to != null) {
            to.onRelayLost(this);
        }
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
}
