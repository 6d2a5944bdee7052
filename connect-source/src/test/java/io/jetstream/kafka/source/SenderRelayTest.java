package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.source.sender.Relay;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SenderRelayTest {

    private static final InetSocketAddress RELAY = InetSocketAddress.createUnresolved("relay-a", 7000);

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterEach
    void stopGroup() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private PeerClient bound(SenderRelay relay) {
        PeerClient client = new PeerClient(PeerClientConfig.builder(RELAY, PeerRole.SENDER, "src-0", "orders", "t")
                .build(), group, relay);
        relay.bind(client);
        return client;
    }

    @Test
    void aRelayNamesItsAddressAndIsNotReadyBeforeItsHandshake() {
        SenderRelay relay = new SenderRelay(false, IGNORING);
        PeerClient client = bound(relay);

        assertThat(relay.name()).isEqualTo(RELAY.toString());
        assertThat(relay.preferred()).isFalse();
        assertThat(relay.isReady()).isFalse();
        assertThat(relay.maxBatchPayloadBytes()).as("the relay's frame limit comes with its handshake").isZero();
        client.close();
    }

    @Test
    void framesAndTheLossOfTheConnectionGoToTheInboundTheRelayWasMadeWith() {
        List<String> heard = new ArrayList<>();
        SenderRelay relay = new SenderRelay(true, new Relay.Inbound() {
            @Override
            public void onFrame(Relay from, Frame frame) {
                heard.add("frame from " + from.name());
                ReferenceCountUtil.release(frame); // as the sender does
            }

            @Override
            public void onRelayLost(Relay lost) {
                heard.add("lost " + lost.name());
            }
        });
        PeerClient client = bound(relay);
        ByteBuf payload = Unpooled.buffer(8).writeLong(42);

        relay.onFrame(client, new BatchFrame(new BatchHeader(RoutingHeader.unrouted("orders", 1, "src-0", "B"), "orders",
                0, -1, 0, 0, 1, 0L, CompressionCodec.NONE, 8, 0), payload));
        relay.onDisconnected(client, null);

        assertThat(heard).containsExactly("frame from " + RELAY, "lost " + RELAY);
        assertThat(payload.refCnt()).isZero();
        client.close();
    }

    @Test
    void theRoundTripIsUnknownBeforeTheHandshake() {
        SenderRelay relay = new SenderRelay(true, IGNORING);
        PeerClient client = bound(relay);

        assertThat(relay.rttNanos()).as("not ready: no round trip for the batching model").isZero();
        client.close();
    }

    /** Releases what it is given, as the sender does. */
    private static final Relay.Inbound IGNORING = new Relay.Inbound() {
        @Override
        public void onFrame(Relay from, Frame frame) {
            ReferenceCountUtil.release(frame);
        }

        @Override
        public void onRelayLost(Relay relay) {
        }
    };
}
