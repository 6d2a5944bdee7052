package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.transport.PeerClient;
import java.util.function.BiConsumer;

/**
 * One egress relay as the {@link ReplicationReceiver} sees it: the batches of a {@link PeerClient}
 * made by {@link RelayClients} go to the receiver, and acknowledgements go back on the connection
 * the batch came from.
 */
public final class RelayUpstream implements ReplicationReceiver.Upstream, RelayClients.Connection {

    private final BiConsumer<ReplicationReceiver.Upstream, Frame> frames;
    private PeerClient client;

    /** @param frames where the relay's frames go, with this upstream ({@code ReplicationReceiver::onFrame}) */
    public RelayUpstream(BiConsumer<ReplicationReceiver.Upstream, Frame> frames) {
        this.frames = frames;
    }

    @Override
    public void bind(PeerClient client) {
        this.client = client;
    }

    @Override
    public void onFrame(PeerClient c, Frame frame) {
        frames.accept(this, frame);
    }

    @Override
    public String name() {
        return client.remote().toString();
    }

    @Override
    public void sendAck(AckFrame ack) {
        client.send(ack);
    }

    @Override
    public void pauseReading() {
        client.pauseReading();
    }

    @Override
    public void resumeReading() {
        client.resumeReading();
    }
}
