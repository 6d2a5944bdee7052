package io.jetstream.kafka.core.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameType;
import io.jetstream.kafka.core.testing.Fuzz;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input for the frame decoder: random bytes and mutants of valid frames of every type (bit
 * flips, overwrites, truncation at every position, forged length prefixes, wrong versions, swapped
 * types, insertions and deletions). Decoding either yields a frame that re-encodes and decodes to
 * itself, or throws {@link ProtocolException}; never another exception; and afterwards every input
 * buffer and every decoded payload has been released (refCnt 0; pooled inputs are also watched by
 * Netty's PARANOID leak detector).
 */
class FrameFuzzTest {

    private static final int MAX_FRAME = 64 * 1024;

    /**
     * Heap-preferring: Unpooled's default allocator hands out direct buffers, which the PARANOID
     * detector traces on every access (slow); the pooled inputs below are the traced sample.
     */
    private static final ByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    // Per test (JUnit makes an instance per test method): the layouts with MAC fields swap both.
    private FrameCodec codec = new FrameCodec(MAX_FRAME);
    private final BatchDecoder batchDecoder = new BatchDecoder();
    private List<byte[]> corpus = FrameSamples.encodedCorpus();

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    @Test
    void randomAndMutatedInputNeverEscapesAsAnotherException() {
        Fuzz fuzz = new Fuzz("frame fuzz");
        int tries = Fuzz.tries();
        for (int i = 0; i < tries; i++) {
            SplittableRandom random = fuzz.random(i);
            byte[] input = generate(random, fuzz);
            decodeAndCheck(input, random, fuzz, i);
        }
        System.out.println(fuzz.summary());
        assertThat(fuzz.cases()).isEqualTo(tries);
        assertThat(fuzz.acceptedCount()).as("some mutants stay valid").isPositive();
        assertThat(fuzz.rejectedByKind()).containsKeys(Kind.FRAME_TOO_LARGE, Kind.TRUNCATED, Kind.UNKNOWN_TYPE,
                Kind.UNSUPPORTED_VERSION, Kind.MALFORMED, Kind.UNKNOWN_CODEC);
    }

    @Test
    void everyTruncationOfEveryValidFrameIsIncompleteNotAnError() {
        int cases = 0;
        for (byte[] frame : corpus) {
            for (int length = 0; length < frame.length; length++) {
                ByteBuf in = Unpooled.buffer(length).writeBytes(frame, 0, length);
                try {
                    assertThat(codec.tryDecode(in)).as("prefix of %d/%d bytes", length, frame.length).isNull();
                    assertThat(in.readerIndex()).isZero();
                    assertThat(codec.readFrame(in)).isNull();
                    ProtocolException e = assertThrows(ProtocolException.class,
                            () -> codec.decode(in));
                    assertThat(e.kind()).isEqualTo(Kind.TRUNCATED);
                } finally {
                    assertThat(in.release()).isTrue();
                }
                cases++;
            }
        }
        assertThat(cases).isGreaterThan(2_500);
    }

    @Test
    void everySingleBitFlipOfEveryValidFrameIsHandled() {
        Fuzz fuzz = new Fuzz("single bit flips");
        int index = 0;
        for (byte[] frame : corpus) {
            for (int bit = 0; bit < frame.length * 8; bit++) {
                byte[] mutant = frame.clone();
                mutant[bit / 8] ^= (byte) (1 << (bit % 8));
                fuzz.strategy("bit " + (bit < 32 ? "in length" : bit < 40 ? "in type" : "in body"));
                decodeAndCheck(mutant, fuzz.random(index), fuzz, index++);
            }
        }
        System.out.println(fuzz.summary());
        assertThat(fuzz.cases()).isGreaterThan(20_000);
    }

    /** The same checks on the layouts with a {@code mac} field (HELLO flag FLAG_MACS taken). */
    @Test
    void withTheMacFieldsRandomMutantsAndEverySingleBitFlipAreHandled() {
        codec = new FrameCodec(MAX_FRAME).withMacs(true);
        corpus = FrameSamples.encodedCorpusWithMacs();
        Fuzz fuzz = new Fuzz("frame fuzz with MAC fields");
        int tries = Fuzz.tries() / 4;
        for (int i = 0; i < tries; i++) {
            SplittableRandom random = fuzz.random(i);
            decodeAndCheck(generate(random, fuzz), random, fuzz, i);
        }
        int index = tries;
        for (byte[] frame : corpus) {
            for (int bit = 0; bit < frame.length * 8; bit++) {
                byte[] mutant = frame.clone();
                mutant[bit / 8] ^= (byte) (1 << (bit % 8));
                fuzz.strategy("single bit flip");
                decodeAndCheck(mutant, fuzz.random(index), fuzz, index++);
            }
        }
        System.out.println(fuzz.summary());
        assertThat(fuzz.acceptedCount()).as("some mutants stay valid").isPositive();
        assertThat(fuzz.rejectedByKind()).containsKeys(Kind.TRUNCATED, Kind.MALFORMED);
    }

    private void decodeAndCheck(byte[] input, SplittableRandom random, Fuzz fuzz, long index) {
        ByteBuf in = wrap(input, random);
        Frame frame = null;
        try {
            int mode = random.nextInt(3);
            if (mode == 0) {
                frame = codec.decode(in);
            } else if (mode == 1) {
                frame = codec.tryDecode(in);
            } else {
                ByteBuf raw = codec.readFrame(in);
                if (raw != null) {
                    try {
                        frame = codec.decode(raw);
                    } finally {
                        raw.release();
                    }
                }
            }
            if (frame != null) {
                checkValid(frame, random);
                fuzz.accepted();
            }
        } catch (ProtocolException e) {
            fuzz.rejected(e);
        } catch (Throwable t) {
            throw new AssertionError(fuzz.where(index) + ": input " + ProtocolArbitraries.hex(input, 512) + " raised "
                    + t, t);
        } finally {
            ReferenceCountUtil.release(frame);
            assertThat(in.refCnt()).as(fuzz.where(index) + ": input refCnt after decode").isEqualTo(1);
            assertThat(in.release()).as(fuzz.where(index) + ": input released").isTrue();
        }
    }

    /** A decoded frame is a valid value: it re-encodes to a frame that decodes to an equal value. */
    private void checkValid(Frame frame, SplittableRandom random) {
        ByteBuf again;
        if (random.nextInt(16) == 0) {
            // The zero-copy path; its composite buffer is leak-tracked (slow under PARANOID), so a sample.
            again = codec.encode(frame, HEAP);
        } else {
            again = Unpooled.buffer();
            codec.encode(frame, again);
        }
        try {
            Frame decoded = codec.decode(again);
            try {
                assertThat(decoded).isEqualTo(frame);
            } finally {
                ReferenceCountUtil.release(decoded);
            }
        } finally {
            again.release();
        }
        if (frame instanceof BatchFrame batch && ThreadLocalRandom.current().nextInt(8) == 0) {
            // Payload decoding is covered by BatchDecoderFuzzTest; here a sample checks the two layers together.
            try {
                batchDecoder.decode(batch.encodedBatch());
            } catch (ProtocolException expected) {
                // the payload may be damaged while the header is fine: that is the subscriber's NACK case
            }
        }
    }

    private byte[] generate(SplittableRandom random, Fuzz fuzz) {
        byte[] base = corpus.get(random.nextInt(corpus.size()));
        int strategy = random.nextInt(10);
        switch (strategy) {
            case 0: {
                fuzz.strategy("random-bytes");
                byte[] bytes = new byte[random.nextInt(64)];
                random.nextBytes(bytes);
                if (bytes.length >= 5 && random.nextBoolean()) {
                    // A plausible prefix so the body decoders see garbage too.
                    putInt(bytes, 0, bytes.length - 4);
                    bytes[4] = (byte) (1 + random.nextInt(FrameType.values().length));
                }
                return bytes;
            }
            case 1: {
                fuzz.strategy("bit-flips");
                byte[] bytes = base.clone();
                for (int f = 1 + random.nextInt(4); f > 0; f--) {
                    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return bytes;
            }
            case 2: {
                fuzz.strategy("byte-overwrites");
                byte[] bytes = base.clone();
                for (int w = 1 + random.nextInt(3); w > 0; w--) {
                    // Bias towards the header, where the lengths and codes live.
                    int at = random.nextBoolean() ? random.nextInt(Math.min(bytes.length, 48))
                            : random.nextInt(bytes.length);
                    bytes[at] = (byte) random.nextInt(256);
                }
                return bytes;
            }
            case 3:
                fuzz.strategy("truncation");
                return Arrays.copyOf(base, random.nextInt(base.length));
            case 4: {
                fuzz.strategy("huge-length-prefix");
                byte[] bytes = base.clone();
                int length = random.nextBoolean() ? MAX_FRAME + 1 + random.nextInt(Integer.MAX_VALUE - MAX_FRAME - 1)
                        : random.nextInt(Integer.MIN_VALUE, 0);
                putInt(bytes, 0, length);
                return bytes;
            }
            case 5: {
                fuzz.strategy("wrong-length-prefix");
                byte[] bytes = base.clone();
                putInt(bytes, 0, Math.max(0, bytes.length - 4 + random.nextInt(-8, 9)));
                return bytes;
            }
            case 6: {
                fuzz.strategy("wrong-version");
                byte[] bytes = corpus.get(random.nextInt(4)).clone(); // HELLO and HELLO_OK samples
                int version = random.nextInt(0x10000);
                bytes[5] = (byte) (version >>> 8);
                bytes[6] = (byte) version;
                return bytes;
            }
            case 7: {
                fuzz.strategy("swapped-type");
                byte[] bytes = base.clone();
                bytes[4] = (byte) random.nextInt(13);
                return bytes;
            }
            case 8: {
                fuzz.strategy("insert-delete");
                int at = 5 + random.nextInt(base.length - 5);
                byte[] bytes;
                if (random.nextBoolean()) {
                    bytes = new byte[base.length + 1];
                    System.arraycopy(base, 0, bytes, 0, at);
                    bytes[at] = (byte) random.nextInt(256);
                    System.arraycopy(base, at, bytes, at + 1, base.length - at);
                } else {
                    bytes = new byte[base.length - 1];
                    System.arraycopy(base, 0, bytes, 0, at);
                    System.arraycopy(base, at + 1, bytes, at, base.length - at - 1);
                }
                if (random.nextBoolean()) {
                    putInt(bytes, 0, bytes.length - 4); // keep the prefix consistent to reach the body
                }
                return bytes;
            }
            default: {
                fuzz.strategy("two-frames-concatenated");
                byte[] second = corpus.get(random.nextInt(corpus.size()));
                byte[] bytes = Arrays.copyOf(base, base.length + second.length);
                System.arraycopy(second, 0, bytes, base.length, second.length);
                bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                return bytes;
            }
        }
    }

    /**
     * Mostly unpooled heap buffers (fast, refCnt still checked); one case in 32 uses a pooled direct
     * buffer, which Netty's PARANOID detector tracks (and traces on every access, which is slow), and
     * one in 32 a composite of two components, whose slices span both. (An empty input is a real
     * buffer, not Unpooled's shared EMPTY_BUFFER, so that its release is observable.)
     */
    private static ByteBuf wrap(byte[] input, SplittableRandom random) {
        int kind = random.nextInt(32);
        if (kind == 0) {
            ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(1, input.length));
            return pooled.writeBytes(input);
        }
        if (kind == 1 && input.length > 1) {
            int split = 1 + random.nextInt(input.length - 1);
            CompositeByteBuf composite = Unpooled.compositeBuffer(2);
            composite.addComponents(true, Unpooled.wrappedBuffer(Arrays.copyOfRange(input, 0, split)),
                    PooledByteBufAllocator.DEFAULT.heapBuffer(input.length - split).writeBytes(input, split,
                            input.length - split));
            return composite;
        }
        return input.length == 0 ? Unpooled.buffer(0) : Unpooled.wrappedBuffer(input);
    }

    private static void putInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }
}
