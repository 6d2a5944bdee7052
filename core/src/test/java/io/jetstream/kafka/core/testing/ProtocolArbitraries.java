package io.jetstream.kafka.core.testing;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
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
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.apache.kafka.common.record.TimestampType;

/**
 * jqwik generators for batches and every frame type except BATCH (whose payload buffer the tests
 * build themselves, so they control its release). Strings stay in the BMP without surrogates: the
 * wire is UTF-8 and an unpaired surrogate has no UTF-8 form.
 */
public final class ProtocolArbitraries {

    private ProtocolArbitraries() {
    }

    public static Arbitrary<String> text(int maxLength) {
        return Arbitraries.strings().withCharRange('\u0000', '\uD7FF').ofMaxLength(maxLength);
    }

    public static Arbitrary<String> id() {
        return Arbitraries.oneOf(
                Arbitraries.strings().alpha().numeric().withChars('-', '.', '_', '/').ofMinLength(1).ofMaxLength(40),
                text(20).filter(s -> !s.isEmpty()));
    }

    public static Arbitrary<byte[]> nullableBytes(int maxSize) {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(maxSize).injectNull(0.15);
    }

    public static Arbitrary<RecordHeader> header() {
        Arbitrary<String> keys = Arbitraries.oneOf(Arbitraries.of("trace-id", "content-type", "source", "ü-ключ"),
                text(12));
        return Combinators.combine(keys, nullableBytes(24)).as(RecordHeader::new);
    }

    public static Arbitrary<ReplicatedRecord> record() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.of(TimestampType.class),
                nullableBytes(64), nullableBytes(256), header().list().ofMaxSize(4))
                .as(ReplicatedRecord::new);
    }

    public static Arbitrary<RecordBatch> batch() {
        return Combinators.combine(id(), Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs(),
                record().list().ofMaxSize(12))
                .as(RecordBatch::new);
    }

    public static Arbitrary<RoutingHeader> routing() {
        Arbitrary<List<String>> paths = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(12)
                .map(host -> host + ":9092").list().ofMaxSize(5);
        return Combinators.combine(id(), Arbitraries.longs(), id(), id(), paths)
                .flatAs((stream, id, origin, destination, path) -> Arbitraries.integers()
                        .between(0, Math.max(0, path.size() - 1))
                        .map(hop -> new RoutingHeader(stream, id, origin, destination, path, hop)));
    }

    public static Arbitrary<BatchHeader> batchHeader() {
        Arbitrary<long[]> offsets = Arbitraries.longs().array(long[].class).ofSize(3);
        return Combinators.combine(routing(), id(), Arbitraries.integers().greaterOrEqual(0), offsets,
                Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs(), Arbitraries.of(CompressionCodec.class),
                Arbitraries.integers())
                .as((routing, topic, partition, o, count, createdAt, codec, crc) -> new BatchHeader(routing, topic,
                        partition, o[0], o[1], o[2], count, createdAt, codec, count, crc));
    }

    /** Every frame type but BATCH. */
    public static Arbitrary<Frame> nonBatchFrame() {
        return Arbitraries.oneOf(hello(), helloOk(), ack(), subscribe(), subscribeOk(), ping(), pong(),
                topicMetadata(), error());
    }

    public static Arbitrary<Frame> hello() {
        return Combinators.combine(Arbitraries.of(PeerRole.class), Arbitraries.integers().between(0, 0xFFFF), id(),
                text(30), text(80))
                .as((role, flags, node, stream, token) -> new HelloFrame(1, role, flags, node, stream, token));
    }

    public static Arbitrary<Frame> helloOk() {
        return Combinators.combine(Arbitraries.integers().between(0, 0xFFFF), id(),
                Arbitraries.integers().greaterOrEqual(1))
                .as((flags, node, max) -> new HelloOkFrame(1, flags, node, max));
    }

    public static Arbitrary<Frame> ack() {
        Arbitrary<AckReason> reasons = Arbitraries.of(AckReason.class);
        return Combinators.combine(id(), id(), Arbitraries.longs(), reasons, text(30),
                Arbitraries.integers().greaterOrEqual(-1), Arbitraries.longs(), text(200))
                .as((stream, origin, id, reason, topic, partition, last, message) -> new AckFrame(stream, origin, id,
                        status(reason, id), reason, topic, partition, last, message));
    }

    /** OK or NACK as the reason requires; half of the plain successes become receipts. */
    private static AckStatus status(AckReason reason, long id) {
        if (reason == AckReason.NONE && (id & 1) == 0) {
            return AckStatus.RECEIVED;
        }
        return reason.isSuccess() ? AckStatus.OK : AckStatus.NACK;
    }

    public static Arbitrary<Frame> subscribe() {
        return Combinators.combine(id(), id(), Arbitraries.integers().between(1, 0xFFFF))
                .flatAs((stream, subscriber, count) -> Arbitraries.integers().between(0, count - 1)
                        .flatMap(index -> Arbitraries.longs().greaterOrEqual(0)
                                .map(epoch -> new SubscribeFrame(stream, subscriber, index, count, epoch))));
    }

    public static Arbitrary<Frame> subscribeOk() {
        return Combinators.combine(id(), Arbitraries.integers().between(1, 0xFFFF))
                .flatAs((stream, count) -> Arbitraries.integers().between(0, count - 1)
                        .map(index -> new SubscribeOkFrame(stream, index, count)));
    }

    public static Arbitrary<Frame> ping() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(PingFrame::new);
    }

    public static Arbitrary<Frame> pong() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(PongFrame::new);
    }

    public static Arbitrary<Frame> topicMetadata() {
        return Combinators.combine(routing(), id(), Arbitraries.integers().greaterOrEqual(1),
                Arbitraries.maps(Arbitraries.strings().alpha().withChars('.').ofMinLength(1).ofMaxLength(30),
                        text(40)).ofMaxSize(6))
                .as(TopicMetadataFrame::new);
    }

    public static Arbitrary<Frame> error() {
        return Combinators.combine(Arbitraries.of(ErrorCode.class), text(200)).as(ErrorFrame::new);
    }

    /** A-Z text like the benchmark payload of the brief: compresses to roughly 60% with zstd. */
    public static byte[] letters(java.util.Random random, int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ('A' + random.nextInt(26));
        }
        return bytes;
    }

    public static String hex(byte[] bytes, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(max, bytes.length); i++) {
            sb.append(String.format("%02x", bytes[i]));
        }
        return bytes.length > max ? sb + "...(" + bytes.length + " bytes)" : sb.toString();
    }
}
