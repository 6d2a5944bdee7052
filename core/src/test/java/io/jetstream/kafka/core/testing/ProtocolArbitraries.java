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
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.apache.kafka.common.record.TimestampType;

/**
 * Seeded generators for batches and every frame type except BATCH (whose payload buffer the tests
 * build themselves, so they control its release). Every value is drawn from the {@link Random}
 * passed in, so a test case is reproduced by its seed alone: {@code new Random(seed)} and the same
 * calls give the same inputs.
 *
 * <p>Besides uniform values, each generator returns its boundaries often (about one draw in
 * {@value #EDGE_ONE_IN}): empty and maximum-length strings and lists, {@code 0}, {@code -1},
 * {@code MIN_VALUE} and {@code MAX_VALUE} of numbers, range ends, {@code null} where the type allows
 * it. Strings stay in the BMP without surrogates: the wire is UTF-8 and an unpaired surrogate has no
 * UTF-8 form; they mix ASCII, two-byte and three-byte UTF-8 characters.
 */
public final class ProtocolArbitraries {

    /** Roughly one draw in this many returns a boundary value instead of a uniform one. */
    public static final int EDGE_ONE_IN = 8;

    private static final long[] LONG_EDGES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1,
        Long.MAX_VALUE};
    private static final String ID_CHARS =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/";
    private static final String ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final String CONFIG_KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.";
    private static final char MAX_CHAR = '\uD7FF';
    private static final List<String> HEADER_KEYS = List.of("trace-id", "content-type", "source", "ü-ключ");

    private ProtocolArbitraries() {
    }

    /**
     * A fixed list of {@code count} well-spread seeds, the same on every run (consecutive small seeds
     * give correlated first draws from {@link Random}, so they are mixed first).
     */
    public static LongStream seeds(long master, int count) {
        return new SplittableRandom(master).longs(count);
    }

    // ---- numbers ------------------------------------------------------------------------------

    private static boolean edge(Random random) {
        return random.nextInt(EDGE_ONE_IN) == 0;
    }

    /** Any long: boundaries, small values and uniform 64-bit values. */
    public static long anyLong(Random random) {
        if (edge(random)) {
            return LONG_EDGES[random.nextInt(LONG_EDGES.length)];
        }
        return random.nextInt(4) == 0 ? random.nextInt(2001) - 1000 : random.nextLong();
    }

    /** A long in {@code min..Long.MAX_VALUE}. */
    public static long longAtLeast(Random random, long min) {
        if (edge(random)) {
            long[] edges = {min, min + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
            return Math.max(min, edges[random.nextInt(edges.length)]);
        }
        if (random.nextInt(4) == 0 && min <= Long.MAX_VALUE - 1000) {
            return min + random.nextInt(1001);
        }
        return min == Long.MAX_VALUE ? min : random.nextLong(min, Long.MAX_VALUE);
    }

    /** An int in {@code min..max}, both inclusive; the ends, their neighbours and 0 come often. */
    public static int intBetween(Random random, int min, int max) {
        if (min > max) {
            throw new IllegalArgumentException(min + " > " + max);
        }
        if (edge(random)) {
            long[] edges = {min, (long) min + 1, (long) max - 1, max, 0, -1, 1};
            long value = edges[random.nextInt(edges.length)];
            if (value >= min && value <= max) {
                return (int) value;
            }
            return random.nextBoolean() ? min : max;
        }
        return (int) random.nextLong(min, (long) max + 1);
    }

    public static int intAtLeast(Random random, int min) {
        return intBetween(random, min, Integer.MAX_VALUE);
    }

    public static int anyInt(Random random) {
        return intBetween(random, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** A size in {@code min..max}: the ends come often, otherwise uniform. */
    public static int size(Random random, int min, int max) {
        if (edge(random)) {
            return random.nextBoolean() ? min : max;
        }
        return min + random.nextInt(max - min + 1);
    }

    public static <E extends Enum<E>> E oneOf(Random random, Class<E> type) {
        E[] values = type.getEnumConstants();
        return values[random.nextInt(values.length)];
    }

    public static <T> List<T> listOf(Random random, int minSize, int maxSize, Function<Random, T> element) {
        int size = size(random, minSize, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(random));
        }
        return list;
    }

    // ---- strings and bytes --------------------------------------------------------------------

    /** One BMP char below the surrogates: '\0', the highest, ASCII, two- or three-byte UTF-8. */
    public static char anyChar(Random random) {
        if (random.nextInt(20) == 0) {
            char[] edges = {'\u0000', MAX_CHAR, '\u007F', '\u0080', '\u07FF', '\u0800', 'ü', ' '};
            return edges[random.nextInt(edges.length)];
        }
        return switch (random.nextInt(4)) {
            case 0 -> (char) random.nextInt(0x80);
            case 1 -> (char) (0x80 + random.nextInt(0x800 - 0x80));
            default -> (char) random.nextInt(MAX_CHAR + 1);
        };
    }

    /** Text of 0..maxLength chars from '\u0000'..'\uD7FF'. */
    public static String text(Random random, int maxLength) {
        return text(random, 0, maxLength);
    }

    public static String text(Random random, int minLength, int maxLength) {
        int length = size(random, minLength, maxLength);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(anyChar(random));
        }
        return sb.toString();
    }

    private static String from(Random random, String chars, int minLength, int maxLength) {
        int length = size(random, minLength, maxLength);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(chars.charAt(random.nextInt(chars.length())));
        }
        return sb.toString();
    }

    /** A non-empty identifier: 1..40 of [A-Za-z0-9-._/], or 1..20 chars of any text. */
    public static String id(Random random) {
        return random.nextBoolean() ? from(random, ID_CHARS, 1, 40) : text(random, 1, 20);
    }

    public static byte[] bytes(Random random, int maxSize) {
        byte[] bytes = new byte[size(random, 0, maxSize)];
        random.nextBytes(bytes);
        return bytes;
    }

    /** 0..maxSize random bytes, or {@code null} in about 15% of draws. */
    public static byte[] nullableBytes(Random random, int maxSize) {
        return random.nextInt(100) < 15 ? null : bytes(random, maxSize);
    }

    // ---- batches ------------------------------------------------------------------------------

    public static RecordHeader header(Random random) {
        String key = random.nextBoolean() ? HEADER_KEYS.get(random.nextInt(HEADER_KEYS.size())) : text(random, 12);
        return new RecordHeader(key, nullableBytes(random, 24));
    }

    public static ReplicatedRecord record(Random random) {
        return new ReplicatedRecord(anyLong(random), anyLong(random), oneOf(random, TimestampType.class),
                nullableBytes(random, 64), nullableBytes(random, 256),
                listOf(random, 0, 4, ProtocolArbitraries::header));
    }

    public static RecordBatch batch(Random random) {
        return new RecordBatch(id(random), intAtLeast(random, 0), anyLong(random),
                listOf(random, 0, 12, ProtocolArbitraries::record));
    }

    // ---- frames -------------------------------------------------------------------------------

    public static RoutingHeader routing(Random random) {
        String stream = id(random);
        long id = anyLong(random);
        String origin = id(random);
        String destination = id(random);
        List<String> path = listOf(random, 0, 5, r -> from(r, ALNUM, 1, 12) + ":9092");
        int hop = intBetween(random, 0, Math.max(0, path.size() - 1));
        return new RoutingHeader(stream, id, origin, destination, path, hop);
    }

    public static BatchHeader batchHeader(Random random) {
        RoutingHeader routing = routing(random);
        String topic = id(random);
        int partition = intAtLeast(random, 0);
        long prev = anyLong(random);
        long first = anyLong(random);
        long last = anyLong(random);
        int count = intAtLeast(random, 0);
        long createdAt = anyLong(random);
        CompressionCodec codec = oneOf(random, CompressionCodec.class);
        int crc = anyInt(random);
        return new BatchHeader(routing, topic, partition, prev, first, last, count, createdAt, codec, count, crc);
    }

    /** No MAC one time in four, else 32 random bytes. */
    public static FrameMac mac(Random random) {
        if (random.nextInt(4) == 0) {
            return FrameMac.NONE;
        }
        byte[] mac = new byte[FrameMac.LENGTH];
        random.nextBytes(mac);
        return FrameMac.of(mac);
    }

    /** The frame with a {@link #mac} if its type can carry one (ACK, TOPIC_METADATA), else unchanged. */
    public static Frame withMac(Frame frame, Random random) {
        if (frame instanceof AckFrame ack) {
            return ack.withMac(mac(random));
        }
        if (frame instanceof TopicMetadataFrame metadata) {
            return metadata.withMac(mac(random));
        }
        return frame;
    }

    /** Every frame type but BATCH, each equally likely. */
    public static Frame nonBatchFrame(Random random) {
        return switch (random.nextInt(9)) {
            case 0 -> hello(random);
            case 1 -> helloOk(random);
            case 2 -> ack(random);
            case 3 -> subscribe(random);
            case 4 -> subscribeOk(random);
            case 5 -> ping(random);
            case 6 -> pong(random);
            case 7 -> topicMetadata(random);
            default -> error(random);
        };
    }

    public static Frame hello(Random random) {
        return new HelloFrame(3, oneOf(random, PeerRole.class), intBetween(random, 0, 0xFFFF), id(random),
                text(random, 30), text(random, 80));
    }

    public static Frame helloOk(Random random) {
        return new HelloOkFrame(3, intBetween(random, 0, 0xFFFF), id(random), intAtLeast(random, 1));
    }

    public static Frame ack(Random random) {
        String stream = id(random);
        String origin = id(random);
        long id = anyLong(random);
        AckReason reason = oneOf(random, AckReason.class);
        return new AckFrame(stream, origin, id, status(reason, id), reason, text(random, 30),
                intAtLeast(random, -1), anyLong(random), text(random, 200));
    }

    /** OK or NACK as the reason requires; half of the plain successes become receipts. */
    private static AckStatus status(AckReason reason, long id) {
        if (reason == AckReason.NONE && (id & 1) == 0) {
            return AckStatus.RECEIVED;
        }
        return reason.isSuccess() ? AckStatus.OK : AckStatus.NACK;
    }

    public static Frame subscribe(Random random) {
        String stream = id(random);
        String subscriber = id(random);
        int count = intBetween(random, 1, 0xFFFF);
        int index = intBetween(random, 0, count - 1);
        return new SubscribeFrame(stream, subscriber, index, count, longAtLeast(random, 0));
    }

    public static Frame subscribeOk(Random random) {
        String stream = id(random);
        int count = intBetween(random, 1, 0xFFFF);
        return new SubscribeOkFrame(stream, intBetween(random, 0, count - 1), count);
    }

    public static Frame ping(Random random) {
        return new PingFrame(anyLong(random), anyLong(random));
    }

    public static Frame pong(Random random) {
        return new PongFrame(anyLong(random), anyLong(random));
    }

    public static Frame topicMetadata(Random random) {
        RoutingHeader routing = routing(random);
        String topic = id(random);
        int partitions = intAtLeast(random, 1);
        int entries = size(random, 0, 6);
        Map<String, String> configs = new LinkedHashMap<>();
        while (configs.size() < entries) {
            configs.put(from(random, CONFIG_KEY_CHARS, 1, 30), text(random, 40));
        }
        return new TopicMetadataFrame(routing, topic, partitions, configs,
                new org.apache.kafka.common.Uuid(random.nextLong(), random.nextLong()), random.nextLong() & Long.MAX_VALUE);
    }

    public static Frame error(Random random) {
        return new ErrorFrame(oneOf(random, ErrorCode.class), text(random, 200));
    }

    /**
     * Hand-picked boundary frames of every non-BATCH type: empty and longest strings, the extreme
     * numbers each field allows, empty and longest paths and config maps.
     */
    public static List<Frame> boundaryNonBatchFrames() {
        String longestId = "i".repeat(39) + MAX_CHAR;
        String longestText80 = String.valueOf(MAX_CHAR).repeat(80);
        String longestText200 = String.valueOf(MAX_CHAR).repeat(199) + '\u0000';
        RoutingHeader unrouted = new RoutingHeader("s", Long.MIN_VALUE, "o", "d", List.of(), 0);
        RoutingHeader longest = new RoutingHeader(longestId, Long.MAX_VALUE, longestId, longestId,
                List.of("a:9092", "b:9092", "c:9092", "d:9092", "e".repeat(12) + ":9092"), 4);
        Map<String, String> sixConfigs = new LinkedHashMap<>();
        for (int i = 0; i < 6; i++) {
            sixConfigs.put("k".repeat(29) + (char) ('a' + i), i == 0 ? "" : String.valueOf(MAX_CHAR).repeat(40));
        }
        List<Frame> frames = new ArrayList<>();
        for (PeerRole role : PeerRole.values()) {
            frames.add(new HelloFrame(3, role, 0, "n", "", ""));
            frames.add(new HelloFrame(3, role, 0xFFFF, longestId, String.valueOf(MAX_CHAR).repeat(30), longestText80));
        }
        frames.add(new HelloOkFrame(3, 0, "\u0000", 1));
        frames.add(new HelloOkFrame(3, 0xFFFF, longestId, Integer.MAX_VALUE));
        for (AckReason reason : AckReason.values()) {
            for (long id : new long[] {Long.MIN_VALUE, Long.MAX_VALUE}) {
                frames.add(new AckFrame("s", "o", id, status(reason, id), reason, "", -1, Long.MIN_VALUE, ""));
                frames.add(new AckFrame(longestId, longestId, id, status(reason, id), reason,
                        String.valueOf(MAX_CHAR).repeat(30), Integer.MAX_VALUE, Long.MAX_VALUE, longestText200));
            }
        }
        frames.add(new SubscribeFrame("s", "u", 0, 1, 0));
        frames.add(new SubscribeFrame(longestId, longestId, 0xFFFE, 0xFFFF, Long.MAX_VALUE));
        frames.add(new SubscribeOkFrame("s", 0, 1));
        frames.add(new SubscribeOkFrame(longestId, 0xFFFE, 0xFFFF));
        for (long value : LONG_EDGES) {
            frames.add(new PingFrame(value, -value));
            frames.add(new PongFrame(-value, value));
        }
        frames.add(new TopicMetadataFrame(unrouted, "t", 1, Map.of()));
        frames.add(new TopicMetadataFrame(longest, longestId, Integer.MAX_VALUE, sixConfigs));
        for (ErrorCode code : ErrorCode.values()) {
            frames.add(new ErrorFrame(code, ""));
            frames.add(new ErrorFrame(code, longestText200));
        }
        return frames;
    }

    /** Boundary batch headers: the smallest and largest value of every field. */
    public static List<BatchHeader> boundaryBatchHeaders() {
        String longestId = "i".repeat(39) + MAX_CHAR;
        RoutingHeader unrouted = new RoutingHeader("s", Long.MIN_VALUE, "o", "d", List.of(), 0);
        RoutingHeader longest = new RoutingHeader(longestId, Long.MAX_VALUE, longestId, longestId,
                List.of("a:9092", "b:9092", "c:9092", "d:9092", "e".repeat(12) + ":9092"), 4);
        List<BatchHeader> headers = new ArrayList<>();
        for (CompressionCodec codec : CompressionCodec.values()) {
            headers.add(new BatchHeader(unrouted, "t", 0, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 0,
                    Long.MIN_VALUE, codec, 0, Integer.MIN_VALUE));
            headers.add(new BatchHeader(longest, longestId, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
                    Long.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, codec, Integer.MAX_VALUE, Integer.MAX_VALUE));
        }
        return headers;
    }

    // ---- payload helpers ----------------------------------------------------------------------

    /** A-Z text like the benchmark payload of the brief: compresses to roughly 60% with zstd. */
    public static byte[] letters(Random random, int size) {
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
