package io.jetstream.kafka.sink.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RelayUpstreamTest {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterEach
    void stopGroup() {
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void framesGoToTheReceiverWithTheUpstreamTheyCameFrom() {
        List<ReplicationReceiver.Upstream> from = new ArrayList<>();
        List<Frame> frames = new ArrayList<>();
        RelayUpstream upstream = new RelayUpstream((u, f) -> {
            from.add(u);
            frames.add(f);
        });
        InetSocketAddress relay = InetSocketAddress.createUnresolved("egress-1", 7100);
        PeerClient client = new PeerClient(PeerClientConfig.builder(relay, PeerRole.SENDER, "dst-0", "orders", "t")
                .build(), group, upstream);
        upstream.bind(client);
        PingFrame ping = new PingFrame(7L, 0L);

        upstream.onFrame(client, ping);

        assertThat(from).containsExactly(upstream);
        assertThat(frames).containsExactly(ping);
        assertThat(upstream.name()).isEqualTo(relay.toString());
        client.close();
    }
}
