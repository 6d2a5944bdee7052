package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.server.EmbeddedRelay;
import io.jetstream.kafka.relay.testing.TestBatches;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The data-path handlers without sockets: each "connection" is an {@link EmbeddedChannel} with the
 * relay's real pipeline, all sharing one relay. Runs under the PARANOID leak detector, and checks
 * reference counts of the frames it feeds in.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RelayHandlersTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private final FrameCodec codec = new FrameCodec();
    /** The layouts of a connection whose handshake agreed on the MAC fields. */
    private final FrameCodec macCodec = codec.withMacs(true);
    private final TestBatches batches = new TestBatches();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final Map<EmbeddedChannel, FrameCodec> layouts = new java.util.HashMap<>();
    private final FrameSigner signer = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");
    private EmbeddedRelay relay;

    @AfterEach
    void close() {
        for (EmbeddedChannel channel : channels) {
            channel.finishAndReleaseAll();
        }
        if (relay != null) {
            relay.close();
        }
    }

    @AfterAll
    static void noLeaks() {
        LeakChecks.assertNoLeaks();
    }

    private EmbeddedRelay relay(Map<String, Object> props) {
        props.put("ack.timeout.ms", 3_600_000);
        props.put("idle.timeout.ms", 3_600_000);
        relay = new EmbeddedRelay(new RelayConfig(props), new ProtocolDataPipelineFactory());
        return relay;
    }

    private EmbeddedChannel connect() {
        EmbeddedChannel channel = relay.connection();
        channels.add(channel);
        return channel;
    }

    private FrameCodec layout(EmbeddedChannel channel) {
        return layouts.getOrDefault(channel, codec);
    }

    private void write(EmbeddedChannel channel, Frame frame) {
        ByteBuf bytes = layout(channel).encode(frame, ALLOC);
        io.netty.util.ReferenceCountUtil.release(frame);
        channel.writeInbound(bytes);
        channel.runPendingTasks();
    }

    /** Every frame written to the peer so far, decoded (PINGs skipped). */
    private List<Frame> written(EmbeddedChannel channel) {
        channel.runPendingTasks();
        List<Frame> frames = new ArrayList<>();
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            ByteBuf buf = (ByteBuf) out;
            while (buf.isReadable()) {
                Frame frame = layout(channel).decode(buf);
                if (frame instanceof PingFrame) {
                    continue;
                }
                frames.add(frame);
            }
            buf.release();
        }
        return frames;
    }

    private EmbeddedChannel hello(PeerRole role, String nodeId) {
        EmbeddedChannel channel = connect();
        write(channel, HelloFrame.of(role, nodeId, TestRelay.STREAM, TestRelay.TOKEN));
        assertThat(written(channel)).containsExactly(HelloOkFrame.of(relay.config().relayId(),
                relay.config().frameMaxBytes()));
        return channel;
    }

    /** A peer that offers the MAC fields: the relay takes the offer, and both sides switch layouts. */
    private EmbeddedChannel helloWithMacs(PeerRole role, String nodeId) {
        EmbeddedChannel channel = connect();
        write(channel, HelloFrame.of(role, nodeId, TestRelay.STREAM, TestRelay.TOKEN).withMacs());
        List<Frame> answer = written(channel);
        assertThat(answer).singleElement().isInstanceOfSatisfying(HelloOkFrame.class,
                ok -> assertThat(ok.macs()).isTrue());
        layouts.put(channel, macCodec);
        return channel;
    }

    private EmbeddedChannel subscriber(String nodeId, int share, int shares) {
        return subscribe(hello(PeerRole.SUBSCRIBER, nodeId), nodeId, share, shares);
    }

    private EmbeddedChannel subscribe(EmbeddedChannel channel, String nodeId, int share, int shares) {
        SubscribeFrame subscribe = new SubscribeFrame(TestRelay.STREAM, nodeId, share, shares);
        write(channel, subscribe);
        assertThat(written(channel)).containsExactly(SubscribeOkFrame.of(subscribe));
        return channel;
    }

    private BatchFrame batch(long id, int partition) {
        return batches.batch(TestRelay.STREAM, id, "source-0", TestRelay.DESTINATION, "orders", partition, id * 10, 3, 50,
                ALLOC);
    }

    private static int partitionOwnedBy(int share, int shares) {
        for (int p = 0; ; p++) {
            if (Shares.owner("orders", p, shares) == share) {
                return p;
            }
        }
    }

    @Test
    void helloIsAnsweredAndTheRoleRecorded() {
        relay(TestRelay.egress("relay-b1"));

        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");

        assertThat(relay.metrics().connections(RoleLabel.SOURCE_TASK).get()).isEqualTo(1);
        assertThat(relay.metrics().connections(RoleLabel.PENDING).get()).isZero();
        assertThat(sender.pipeline().names()).containsSubsequence("traffic", "frame-decoder", "frame-encoder",
                "heartbeat", "role", "unhandled").doesNotContain("handshake");
        write(sender, new PingFrame(7, 8));
        assertThat(written(sender)).containsExactly(new PongFrame(7, 8));
    }

    @Test
    void anythingBeforeHelloIsRefusedCountedAndReleased() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel channel = connect();
        BatchFrame early = batch(1, 0);
        ByteBuf payload = early.payload();

        write(channel, early);

        assertThat(written(channel)).singleElement().isInstanceOfSatisfying(ErrorFrame.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.UNEXPECTED_FRAME));
        assertThat(channel.isOpen()).isFalse();
        assertThat(payload.refCnt()).isZero();
        assertThat(relay.metrics().errors(ErrorKind.UNEXPECTED_FRAME).get()).isEqualTo(1);
    }

    /**
     * Least privilege: once each role has a token of its own, a token grants its role only, and the
     * stream's shared token no longer grants a role that has one.
     */
    @Test
    void aRolesOwnTokenGrantsThatRoleAloneAndTheSharedTokenNoLonger() {
        String senderToken = "sender-token-0123456789";
        String subscriberToken = "subscriber-token-0123456789";
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("streams." + TestRelay.STREAM + ".sender.token", senderToken);
        props.put("streams." + TestRelay.STREAM + ".subscriber.token", subscriberToken);
        relay(props);

        Map<String, ErrorCode> refused = new java.util.LinkedHashMap<>();
        Map<String, Frame> answers = new java.util.LinkedHashMap<>();
        String[][] attempts = {
            {"SUBSCRIBER", senderToken, "a source task's token subscribing"},
            {"SENDER", subscriberToken, "a destination task's token sending"},
            {"SUBSCRIBER", TestRelay.TOKEN, "the shared token subscribing"},
            {"SENDER", TestRelay.TOKEN, "the shared token sending"},
            {"RELAY", senderToken, "a source task's token as a relay"},
            {"SUBSCRIBER", subscriberToken, "the subscriber's own token"},
            {"SENDER", senderToken, "the sender's own token"},
            {"RELAY", TestRelay.TOKEN, "the shared token as a relay (no relay token set)"},
        };
        for (String[] attempt : attempts) {
            EmbeddedChannel channel = connect();
            write(channel, HelloFrame.of(PeerRole.valueOf(attempt[0]), "n", TestRelay.STREAM, attempt[1]));
            answers.put(attempt[2], written(channel).get(0));
        }
        answers.forEach((what, answer) -> {
            if (answer instanceof ErrorFrame error) {
                refused.put(what, error.code());
            }
        });
        assertThat(refused).containsOnlyKeys("a source task's token subscribing", "a destination task's token sending",
                "the shared token subscribing", "the shared token sending", "a source task's token as a relay");
        assertThat(refused.values()).containsOnly(ErrorCode.AUTHENTICATION_FAILED);
        assertThat(answers.get("the subscriber's own token")).isInstanceOf(HelloOkFrame.class);
        assertThat(relay.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get()).isEqualTo(5);
    }

    @Test
    void aRoleTokenEqualToAnotherIsAConfigErrorOnItsKey() {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("streams." + TestRelay.STREAM + ".subscriber.token", TestRelay.TOKEN);
        assertThatThrownBy(() -> new RelayConfig(props))
                .hasMessageContaining("streams." + TestRelay.STREAM + ".subscriber.token")
                .hasMessageContaining("must differ from streams." + TestRelay.STREAM + ".token")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TestRelay.TOKEN));
    }

    @Test
    void unknownStreamAndWrongTokenAreRefusedAlikeAndCountedApart() {
        relay(TestRelay.egress("relay-b1"));

        EmbeddedChannel unknown = connect();
        write(unknown, HelloFrame.of(PeerRole.SENDER, "n", "other-stream", TestRelay.TOKEN));
        EmbeddedChannel wrongToken = connect();
        write(wrongToken, HelloFrame.of(PeerRole.SENDER, "n", TestRelay.STREAM, "not-the-token-at-all"));

        ErrorFrame uniform = ErrorFrame.of(ErrorCode.AUTHENTICATION_FAILED, "authentication failed");
        assertThat(written(unknown)).containsExactly(uniform);
        assertThat(written(wrongToken)).containsExactly(uniform);
        assertThat(unknown.isOpen()).isFalse();
        assertThat(wrongToken.isOpen()).isFalse();
        assertThat(relay.metrics().errors(ErrorKind.UNKNOWN_STREAM).get()).isEqualTo(1);
        assertThat(relay.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get()).isEqualTo(1);
    }

    @Test
    void unsupportedVersionIsRefusedBeforeAnyOtherFieldIsRead() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel channel = connect();
        // length, HELLO, version 7, then bytes that are not a valid HELLO body at all
        ByteBuf hello = Unpooled.buffer().writeInt(6).writeByte(1).writeShort(7).writeByte(0xFF).writeShort(0xFFFF);

        channel.writeInbound(hello);

        ErrorFrame error = (ErrorFrame) written(channel).get(0);
        assertThat(error.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
        assertThat(error.message()).contains("supported: 3");
        assertThat(relay.metrics().errors(ErrorKind.UNSUPPORTED_VERSION).get()).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void lengthPrefixAboveTheLimitClosesAtOnce() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel channel = connect();

        channel.writeInbound(Unpooled.buffer(4).writeInt(relay.config().frameMaxBytes() + 1));

        assertThat(written(channel)).singleElement().extracting(f -> ((ErrorFrame) f).code())
                .isEqualTo(ErrorCode.FRAME_TOO_LARGE);
        assertThat(relay.metrics().errors(ErrorKind.FRAME_TOO_LARGE).get()).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void ingressAndEgressDeliversToTheOwnerWithItsPathAndRelaysTheAck() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");

        write(sender, batch(1, 3));

        BatchFrame delivered = (BatchFrame) written(subscriber).get(0);
        RoutingHeader routing = delivered.header().routing();
        assertThat(routing.path()).containsExactly("relay-b1");
        assertThat(routing.hopIndex()).isZero();
        assertThat(relay.budget().batches()).isEqualTo(1);
        AckFrame ack = AckFrame.ok(delivered.header());
        delivered.release();

        write(subscriber, ack);

        assertThat(written(sender)).containsExactly(ack);
        assertThat(relay.budget().reservedBytes()).isZero();
        assertThat(relay.metrics().acks().get()).isEqualTo(1);
    }

    /** A BATCHES frame (no MAC) of the sender's batches of {@code partitions} of "orders", under id {@code id}. */
    private BatchesFrame frameOf(long id, int... partitions) {
        List<BatchFrame> sections = new ArrayList<>();
        for (int p : partitions) {
            sections.add(batch(id * 100 + p, p));
        }
        BatchesFrame frame = BatchesFrame.of(RoutingHeader.unrouted(TestRelay.STREAM, id, "source-0",
                TestRelay.DESTINATION), 1_700_000_000_000L, sections, ALLOC);
        sections.forEach(BatchFrame::release);
        return frame;
    }

    @Test
    void aFrameOfManyPartitionsTravelsWholeToItsOwnerAndOneAnswerComesBack() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");

        write(sender, frameOf(7, 0, 1, 2, 3));

        BatchesFrame delivered = (BatchesFrame) written(subscriber).get(0);
        assertThat(delivered.routing().path()).containsExactly("relay-b1");
        assertThat(delivered.sections()).extracting(BatchesFrame.Section::partition).containsExactly(0, 1, 2, 3);
        delivered.verifyChecksums();
        assertThat(relay.budget().batches()).isEqualTo(1);
        AckFrame ack = AckFrame.ok(delivered);
        delivered.release();

        write(subscriber, ack);

        assertThat(written(sender)).containsExactly(ack);
        assertThat(relay.budget().reservedBytes()).isZero();
        assertThat(relay.metrics().acks().get()).isEqualTo(1);
    }

    @Test
    void aFrameWhosePartitionsBelongToSeveralSharesIsNackedWithTheShareCount() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel first = subscriber("sink-0", 0, 2);
        EmbeddedChannel second = subscriber("sink-1", 1, 2);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        int ofFirst = partitionOwnedBy(0, 2);
        int ofSecond = partitionOwnedBy(1, 2);

        write(sender, frameOf(8, ofFirst, ofSecond));

        AckFrame nack = (AckFrame) written(sender).get(0);
        assertThat(nack.batchId()).isEqualTo(8);
        assertThat(nack.reason()).isEqualTo(AckReason.MIXED_SHARES);
        assertThat(nack.lastOffset()).isEqualTo(2);
        assertThat(written(first)).isEmpty();
        assertThat(written(second)).isEmpty();
        assertThat(relay.metrics().nacks(NackReason.MIXED_SHARES).get()).isEqualTo(1);
        assertThat(relay.budget().reservedBytes()).isZero();

        // grouped by the share count, each frame goes to its owner
        write(sender, frameOf(9, ofSecond, ofSecond + 2, ofSecond + 4));
        BatchesFrame delivered = (BatchesFrame) written(second).get(0);
        assertThat(delivered.frameId()).isEqualTo(9);
        delivered.release();
        assertThat(written(first)).isEmpty();
    }

    @Test
    void aFrameWithASectionNobodyOwnsIsNackedNoSubscriber() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel only = subscriber("sink-0", 0, 2);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");

        write(sender, frameOf(10, partitionOwnedBy(0, 2), partitionOwnedBy(1, 2)));

        AckFrame nack = (AckFrame) written(sender).get(0);
        assertThat(nack.reason()).isEqualTo(AckReason.NO_SUBSCRIBER);
        assertThat(written(only)).isEmpty();
        assertThat(relay.budget().reservedBytes()).isZero();
    }

    @Test
    void aFrameWithACorruptSectionIsNackedAtTheIngress() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        BatchesFrame frame = frameOf(11, 0, 1, 2);
        ByteBuf body = frame.body();
        int at = body.readerIndex() + frame.sections().get(2).payloadOffset() + 3;
        body.setByte(at, body.getByte(at) ^ 0x5A);

        write(sender, frame);

        AckFrame nack = (AckFrame) written(sender).get(0);
        assertThat(nack.batchId()).isEqualTo(11);
        assertThat(nack.reason()).isEqualTo(AckReason.MALFORMED_BATCH);
        assertThat(written(subscriber)).isEmpty();
        assertThat(relay.metrics().nacks(NackReason.INVALID_BATCH).get()).isEqualTo(1);
    }

    @Test
    void corruptPayloadIsNackedAtTheIngressAndTheConnectionStays() {
        relay(TestRelay.egress("relay-b1"));
        subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        BatchFrame corrupt = batch(1, 0);
        int index = corrupt.payload().readerIndex() + 5;
        corrupt.payload().setByte(index, corrupt.payload().getByte(index) ^ 0x5A);

        write(sender, corrupt);

        AckFrame nack = (AckFrame) written(sender).get(0);
        assertThat(nack.reason()).isEqualTo(AckReason.MALFORMED_BATCH);
        assertThat(nack.message()).contains("BAD_CRC");
        assertThat(sender.isOpen()).isTrue();
        assertThat(relay.metrics().errors(ErrorKind.MALFORMED_BATCH).get()).isEqualTo(1);
        assertThat(relay.metrics().nacks(NackReason.INVALID_BATCH).get()).isEqualTo(1);
        assertThat(relay.budget().reservedBytes()).isZero();
    }

    @Test
    void aFrameOfAnotherStreamIsNotAuthorized() {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("streams", TestRelay.STREAM + ",other");
        props.put("streams.other.token", "other-token-0123456789");
        relay(props);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        BatchFrame foreign = batches.batch("other", 1, "source-0", TestRelay.DESTINATION, "t", 0, -1, 1, 1, ALLOC);
        ByteBuf payload = foreign.payload();

        write(sender, foreign);

        assertThat(written(sender)).singleElement().extracting(f -> ((ErrorFrame) f).code())
                .isEqualTo(ErrorCode.NOT_AUTHORIZED);
        assertThat(sender.isOpen()).isFalse();
        assertThat(payload.refCnt()).isZero();
        assertThat(relay.metrics().errors(ErrorKind.NOT_AUTHORIZED).get()).isEqualTo(1);
    }

    @Test
    void aSenderMayNotChooseThePath() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        BatchFrame routed = batch(1, 0);
        routed = routed.withRouting(routed.header().routing().withPath(List.of("evil:1", "relay-b1")));

        write(sender, routed);

        assertThat(((AckFrame) written(sender).get(0)).reason()).isEqualTo(AckReason.MALFORMED_BATCH);
        assertThat(relay.budget().reservedBytes()).isZero();
    }

    @Test
    void subscriberLostNacksItsPendingBatchesAtOnce() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        write(sender, batch(1, 0));
        write(sender, batch(2, 1));
        assertThat(relay.budget().batches()).isEqualTo(2);

        subscriber.finishAndReleaseAll();

        List<Frame> answers = written(sender);
        assertThat(answers).hasSize(2).allSatisfy(f -> assertThat(((AckFrame) f).reason())
                .isEqualTo(AckReason.NEXT_HOP_UNREACHABLE));
        assertThat(relay.budget().reservedBytes()).isZero();
        assertThat(relay.metrics().nacks(NackReason.CONNECTION_LOST).get()).isEqualTo(2);
    }

    @Test
    void connectionBudgetParksFramesUntilTheyAreWrittenDownstreamAndKeepsTheirOrder() {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("buffer.max.bytes.per.connection", 65_536);
        props.put("frame.max.bytes", 65_536);
        // The held writes count frames: no heartbeat PING may join them on a slow machine.
        props.put("heartbeat.interval.ms", 20_000);
        relay(props);
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        HeldWrites socket = HeldWrites.on(subscriber);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");

        for (long id = 1; id <= 10; id++) {
            write(sender, batches.batch(TestRelay.STREAM, id, "source-0", TestRelay.DESTINATION, "orders", 0,
                    (id - 1) * 10 - 1, 10, 1_500, ALLOC));
        }

        assertThat(socket.held()).as("only what fits in the connection budget").isBetween(3, 4);
        assertThat(relay.budget().reservedBytes()).isLessThanOrEqualTo(65_536);
        assertThat(relay.metrics().errors(ErrorKind.BUFFER_FULL).get()).isPositive();

        List<BatchFrame> delivered = new ArrayList<>();
        for (int out = 0; out < 10; out++) {
            assertThat(socket.held()).as("progress after %d writes", out).isPositive();
            socket.completeOne();
            sender.runPendingTasks(); // the upstream is woken on its own event loop
            delivered.addAll(batchesIn(written(subscriber)));
            assertThat(relay.budget().reservedBytes()).isLessThanOrEqualTo(65_536);
        }

        assertThat(delivered).extracting(b -> b.header().batchId()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L,
                9L, 10L);
        assertThat(relay.budget().batches()).as("written, not yet answered").isEqualTo(10);
        assertThat(relay.budget().reservedBytes()).as("only their bookkeeping is held").isEqualTo(10 * 512);
        for (BatchFrame batch : delivered) {
            write(subscriber, AckFrame.ok(batch.header()));
            batch.release();
        }
        assertThat(written(sender)).hasSize(10).allSatisfy(f -> assertThat(((AckFrame) f).isOk()).isTrue());
        assertThat(relay.budget().reservedBytes()).isZero();
        assertThat(relay.budget().batches()).isZero();
    }

    /**
     * Holds the writes that reach the head of a channel's pipeline, as a socket that has not taken
     * them yet would; {@link #completeOne()} lets the oldest through.
     */
    private static final class HeldWrites extends io.netty.channel.ChannelOutboundHandlerAdapter {
        private final java.util.ArrayDeque<Object[]> writes = new java.util.ArrayDeque<>();
        private io.netty.channel.ChannelHandlerContext ctx;

        static HeldWrites on(EmbeddedChannel channel) {
            HeldWrites held = new HeldWrites();
            channel.pipeline().addFirst("held-writes", held);
            return held;
        }

        @Override
        public void handlerAdded(io.netty.channel.ChannelHandlerContext context) {
            this.ctx = context;
        }

        @Override
        public void write(io.netty.channel.ChannelHandlerContext context, Object msg,
                          io.netty.channel.ChannelPromise promise) {
            writes.add(new Object[] {msg, promise});
        }

        @Override
        public void flush(io.netty.channel.ChannelHandlerContext context) {
            // held writes are flushed when completed
        }

        int held() {
            ((EmbeddedChannel) ctx.channel()).runPendingTasks();
            return writes.size();
        }

        void completeOne() {
            Object[] write = writes.poll();
            ctx.writeAndFlush(write[0], (io.netty.channel.ChannelPromise) write[1]);
        }

        @Override
        public void handlerRemoved(io.netty.channel.ChannelHandlerContext context) {
            writes.forEach(w -> io.netty.util.ReferenceCountUtil.release(w[0]));
            writes.clear();
        }
    }

    private static List<BatchFrame> batchesIn(List<Frame> frames) {
        return frames.stream().map(BatchFrame.class::cast).toList();
    }

    @Test
    void subscriberSendingBatchesIsRefused() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        BatchFrame wrongWay = batch(1, 0);
        ByteBuf payload = wrongWay.payload();

        write(subscriber, wrongWay);

        assertThat(written(subscriber)).singleElement().extracting(f -> ((ErrorFrame) f).code())
                .isEqualTo(ErrorCode.UNEXPECTED_FRAME);
        assertThat(payload.refCnt()).isZero();
        assertThat(subscriber.isOpen()).isFalse();
    }

    @Test
    void silentPeersAreToldWhyTheyAreClosed() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel neverSaidHello = connect();
        EmbeddedChannel idleSender = hello(PeerRole.SENDER, "source-0");

        neverSaidHello.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        idleSender.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);

        for (EmbeddedChannel channel : List.of(neverSaidHello, idleSender)) {
            assertThat(written(channel)).singleElement().extracting(f -> ((ErrorFrame) f).code())
                    .isEqualTo(ErrorCode.IDLE_TIMEOUT);
            assertThat(channel.isOpen()).isFalse();
        }
        assertThat(relay.metrics().errors(ErrorKind.IDLE_TIMEOUT).get()).isEqualTo(2);
    }

    @Test
    void aConnectionHeldBackForRoomIsNotTakenForIdle() {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("buffer.max.bytes.per.connection", 65_536);
        props.put("frame.max.bytes", 65_536);
        props.put("heartbeat.interval.ms", 20_000); // as above: the held writes count frames, no PING
        relay(props);
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        HeldWrites socket = HeldWrites.on(subscriber);
        EmbeddedChannel sender = hello(PeerRole.SENDER, "source-0");
        for (long id = 1; id <= 6; id++) {
            write(sender, batches.batch(TestRelay.STREAM, id, "source-0", TestRelay.DESTINATION, "orders", 0,
                    (id - 1) * 10 - 1, 10, 1_500, ALLOC));
        }

        sender.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);

        assertThat(sender.isOpen()).as("waiting for room is not idleness").isTrue();
        assertThat(relay.metrics().errors(ErrorKind.IDLE_TIMEOUT).get()).isZero();
        assertThat(socket.held()).isLessThan(6);
    }

    /**
     * End-to-end integrity: the relay holds no key, routes on what it reads and passes the
     * connectors' MACs on unchanged both ways (a batch's header is re-encoded with its new path,
     * around the same payload).
     */
    @Test
    void theConnectorsMacsCrossTheRelayUnchangedBothWays() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscribe(helloWithMacs(PeerRole.SUBSCRIBER, "sink-0"), "sink-0", 0, 1);
        EmbeddedChannel sender = helloWithMacs(PeerRole.SENDER, "source-0");
        BatchFrame signed = signer.sign(batch(1, 3));
        FrameMac batchMac = signed.header().mac();
        TopicMetadataFrame metadata = signer.sign(new TopicMetadataFrame(RoutingHeader.unrouted(TestRelay.STREAM, 2,
                "source-0", TestRelay.DESTINATION), "orders", 8, Map.of("cleanup.policy", "compact")));

        write(sender, signed);
        write(sender, metadata);

        List<Frame> delivered = written(subscriber);
        BatchFrame batch = (BatchFrame) delivered.get(0);
        TopicMetadataFrame metadataAtSink = (TopicMetadataFrame) delivered.get(1);
        assertThat(batch.header().routing().path()).containsExactly("relay-b1");
        assertThat(batch.header().mac()).isEqualTo(batchMac);
        assertThat(signer.verify(batch)).isEqualTo(FrameSigner.Verdict.VALID);
        assertThat(metadataAtSink.mac()).isEqualTo(metadata.mac());
        assertThat(signer.verify(metadataAtSink)).isEqualTo(FrameSigner.Verdict.VALID);
        AckFrame ack = signer.sign(AckFrame.ok(batch.header()));
        AckFrame metadataAck = signer.sign(AckFrame.ok(metadataAtSink));
        batch.release();

        write(subscriber, ack);
        write(subscriber, metadataAck);

        assertThat(written(sender)).containsExactly(ack, metadataAck);
        assertThat(relay.budget().reservedBytes()).isZero();
    }

    @Test
    void aRoutedBatchFromAnUpstreamRelayKeepsItsMacAtTheEgress() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscribe(helloWithMacs(PeerRole.SUBSCRIBER, "sink-0"), "sink-0", 0, 1);
        EmbeddedChannel upstreamRelay = helloWithMacs(PeerRole.RELAY, "relay-a1");
        BatchFrame signed = signer.sign(batch(1, 3));
        FrameMac mac = signed.header().mac();
        RoutingHeader chosen = signed.header().routing().withPath(List.of("relay-a1", "127.0.0.1:7400")).advance();

        write(upstreamRelay, signed.withRouting(chosen));

        BatchFrame delivered = (BatchFrame) written(subscriber).get(0);
        try {
            assertThat(delivered.header().routing().isAtEgress()).isTrue();
            assertThat(delivered.header().mac()).isEqualTo(mac);
            assertThat(signer.verify(delivered)).isEqualTo(FrameSigner.Verdict.VALID);
        } finally {
            delivered.release();
        }
    }

    /**
     * A peer built before the MAC fields does not offer them: its connection keeps the old layouts
     * and MACs are dropped on that hop (a destination that requires integrity then refuses the batch).
     */
    @Test
    void toAPeerThatDoesNotOfferTheMacFieldsTheRelayWritesTheOldLayoutWithoutTheMac() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel oldSubscriber = subscriber("sink-0", 0, 1);
        EmbeddedChannel sender = helloWithMacs(PeerRole.SENDER, "source-0");

        write(sender, signer.sign(batch(1, 3)));

        BatchFrame delivered = (BatchFrame) written(oldSubscriber).get(0);
        assertThat(delivered.header().mac()).isEqualTo(FrameMac.NONE);
        assertThat(signer.verify(delivered)).isEqualTo(FrameSigner.Verdict.MISSING);
        AckFrame unsigned = AckFrame.ok(delivered.header());
        delivered.release();
        write(oldSubscriber, unsigned);
        assertThat(written(sender)).singleElement().isInstanceOfSatisfying(AckFrame.class,
                ack -> assertThat(ack.mac()).isEqualTo(FrameMac.NONE));
    }

    @Test
    void ackForNothingPendingIsDroppedAndCounted() {
        relay(TestRelay.egress("relay-b1"));
        EmbeddedChannel subscriber = subscriber("sink-0", 0, 1);
        BatchFrame neverSent = batch(42, partitionOwnedBy(0, 1));

        write(subscriber, AckFrame.ok(neverSent.header()));
        neverSent.release();

        assertThat(relay.metrics().errors(ErrorKind.UNKNOWN_ACK).get()).isEqualTo(1);
        assertThat(subscriber.isOpen()).isTrue();
    }
}
