package io.jetstream.kafka.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.TestConfigs;
import io.jetstream.kafka.relay.testing.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data pipeline's shape and its catch-all behaviour, without sockets. */
class RelayServerInitializerTest {

    private final RelayMetrics metrics = new RelayMetrics("r");

    private EmbeddedChannel channel(RelayConfig config, Optional<SslContext> ssl, DataPipelineFactory dataPath,
                                    boolean accepting) {
        LastResortHandler lastResort = new LastResortHandler(metrics);
        TransportPipeline transport = new TransportPipeline(config,
                new ConnectionCounter(metrics, RoleLabel.PENDING), lastResort);
        DefaultChannelGroup group = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        DataPipelineContext context = new DataPipelineContext(config, metrics,
                ByteBudget.unmetered(1024), new PeerConnector(config, Optional.empty(), metrics, group, transport,
                        Clock.system()),
                new RelayHealth("r", Clock.system()));
        return new EmbeddedChannel(new RelayServerInitializer(ssl, transport, dataPath, context, group, () -> accepting,
                new HandshakeAdmission(config, metrics)));
    }

    private EmbeddedChannel plaintextChannel(DataPipelineFactory dataPath) {
        return channel(new RelayConfig(TestConfigs.plaintext("r")), Optional.empty(), dataPath, true);
    }

    private static final DataPipelineFactory MARKER =
            (ch, context) -> ch.pipeline().addLast("data-path", new ChannelInboundHandlerAdapter());

    @Test
    void plaintextPipelineOrder() {
        EmbeddedChannel channel = plaintextChannel(MARKER);

        assertThat(channel.pipeline().names()).startsWith(
                "idle", "flush-consolidation", "connection-role", "data-path", "unhandled");
        assertThat(metrics.connections(RoleLabel.PENDING).get()).isEqualTo(1);
        assertThat(channel.finishAndReleaseAll()).isFalse();
        assertThat(metrics.connections(RoleLabel.PENDING).get()).isZero();
    }

    @Test
    void tlsComesFirst(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.PemPair pair = pki.relay("r", "localhost");
        Map<String, Object> props = TestConfigs.plaintext("r");
        props.put(RelayConfig.TLS_ENABLED, true);
        props.put(RelayConfig.TLS_CERT_FILE, pair.cert().toString());
        props.put(RelayConfig.TLS_KEY_FILE, pair.key().toString());
        props.put(RelayConfig.TLS_CLIENT_AUTH, "none");
        RelayConfig config = new RelayConfig(props);

        EmbeddedChannel channel = channel(config, RelayTls.load(config, new RelayMetrics("relay-test"), Clock.system()).map(RelayTls::server), MARKER, true);

        assertThat(channel.pipeline().names()).startsWith(
                "tls", "idle", "flush-consolidation", "connection-role", "data-path", "unhandled");
        channel.finishAndReleaseAll();
    }

    @Test
    void connectionAcceptedWhileDrainingIsClosedAtOnce() {
        EmbeddedChannel channel = channel(new RelayConfig(TestConfigs.plaintext("r")), Optional.empty(), MARKER, false);

        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.pipeline().get("data-path")).isNull();
    }

    @Test
    void assignedRoleIsCountedUntilTheConnectionCloses() {
        EmbeddedChannel channel = plaintextChannel(MARKER);

        ConnectionCounter.assign(channel, RoleLabel.SOURCE_TASK, metrics);

        assertThat(metrics.connections(RoleLabel.PENDING).get()).isZero();
        assertThat(metrics.connections(RoleLabel.SOURCE_TASK).get()).isEqualTo(1);
        channel.close();
        assertThat(metrics.connections(RoleLabel.SOURCE_TASK).get()).isZero();
    }

    @Test
    void unconsumedInboundBufferIsReleasedCountedAndTheConnectionClosed() {
        EmbeddedChannel channel = plaintextChannel(MARKER);
        ByteBuf unconsumed = Unpooled.buffer().writeInt(42);

        channel.writeInbound(unconsumed);

        assertThat(unconsumed.refCnt()).isZero();
        assertThat(metrics.errors(ErrorKind.INTERNAL).get()).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void readerIdleClosesButWriterIdleIsLeftToTheDataPath() {
        EmbeddedChannel channel = plaintextChannel(MARKER);

        channel.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT);
        assertThat(channel.isOpen()).isTrue();

        channel.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        assertThat(channel.isOpen()).isFalse();
        assertThat(metrics.errors(ErrorKind.IDLE_TIMEOUT).get()).isEqualTo(1);
    }

    @Test
    void exceptionsAreCountedByKindAndClose() {
        EmbeddedChannel channel = plaintextChannel(MARKER);

        channel.pipeline().fireExceptionCaught(new TooLongFrameException("frame of 99 MiB"));
        // Close happens after the flush, which flush consolidation defers to a task.
        channel.runPendingTasks();

        assertThat(metrics.errors(ErrorKind.FRAME_TOO_LARGE).get()).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
        assertThat(LastResortHandler.classify(new CorruptedFrameException("bad magic"))).isEqualTo(ErrorKind.MALFORMED_FRAME);
        assertThat(LastResortHandler.classify(new IOException("Connection reset by peer"))).isEqualTo(ErrorKind.IO);
        assertThat(LastResortHandler.classify(new IllegalStateException("bug"))).isEqualTo(ErrorKind.INTERNAL);
    }

    @Test
    void waterMarksFollowThePerConnectionBuffer() {
        assertThat(PeerConnector.waterMark(16L << 20)).satisfies(mark -> {
            assertThat(mark.high()).isEqualTo(16 << 20);
            assertThat(mark.low()).isEqualTo(8 << 20);
        });
    }
}
