package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.transport.testing.TestFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameEncoderHandlerTest {

    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    private final FrameCodec codec = new FrameCodec();
    private final EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoderHandler(FrameCodec.HOP_INDEX_OFFSET
            + 64 * 1024));

    @AfterEach
    void releaseWhatTheTestDidNotRead() {
        channel.finishAndReleaseAll();
    }

    @AfterAll
    static void noLeaks() {
        LeakChecks.assertNoLeaks();
    }

    @Test
    void batchPayloadIsWrittenWithoutACopy() {
        BatchFrame batch = TestFrames.batch("demo", 1, "o", "d", "t", 3, -1, 10, 100, HEAP);
        ByteBuf payload = batch.payload();
        BatchHeader header = batch.header();
        byte[] payloadBytes = ByteBufUtil.getBytes(payload);

        assertThat(channel.writeOutbound(batch)).isTrue();
        CompositeByteBuf written = channel.readOutbound();

        assertThat(written.numComponents()).isEqualTo(2);
        assertThat(written.component(1).array()).as("second component is the payload's memory").isSameAs(payload.array());
        assertThat(payload.refCnt()).as("the frame was released; the composite keeps the payload").isEqualTo(1);
        BatchFrame decoded = (BatchFrame) codec.decode(written);
        assertThat(decoded.header()).isEqualTo(header);
        assertThat(ByteBufUtil.getBytes(decoded.payload())).isEqualTo(payloadBytes);
        decoded.release();
        written.release();
        assertThat(payload.refCnt()).isZero();
    }

    @Test
    void everyFrameTypeRoundTrips() {
        RoutingHeader routing = RoutingHeader.unrouted("demo", 5, "origin", "site-b").withPath(List.of("a1", "b1:7070"));
        List<Frame> frames = List.of(
                HelloFrame.of(PeerRole.SUBSCRIBER, "node", "demo", "secret"),
                HelloOkFrame.of("relay", 1 << 20),
                AckFrame.nack(TestFrames.small(3, HEAP).header(), AckReason.TIMEOUT, "late"),
                new SubscribeFrame("demo", "sub-1", 1, 2),
                new SubscribeOkFrame("demo", 1, 2),
                new PingFrame(9, 10),
                new PongFrame(9, 10),
                new TopicMetadataFrame(routing, "orders", 6, Map.of("cleanup.policy", "compact")),
                ErrorFrame.of(ErrorCode.SHUTTING_DOWN, "bye"));

        for (Frame frame : frames) {
            channel.writeOutbound(frame);
            ByteBuf written = channel.readOutbound();
            assertThat(codec.decode(written)).isEqualTo(frame);
            written.release();
        }
    }

    @Test
    void nonFramesPassThrough() {
        ByteBuf raw = HEAP.buffer().writeInt(42);
        channel.writeOutbound(raw);
        ByteBuf out = channel.readOutbound();
        assertThat(out).isSameAs(raw);
        out.release();
    }

    @Test
    void oversizedFrameFailsTheWriteAndIsReleased() {
        EmbeddedChannel small = new EmbeddedChannel(new FrameEncoderHandler(1024));
        BatchFrame big = TestFrames.batch("demo", 1, "o", "d", "t", 0, -1, 4, 1000, HEAP);

        assertThatThrownBy(() -> small.writeOutbound(big)).isInstanceOf(EncoderException.class)
                .hasMessageContaining("exceeds the maximum of 1024 bytes");
        assertThat(big.refCnt()).isZero();
        assertThat((Object) small.readOutbound()).isNull();
        small.finishAndReleaseAll();
    }
}
