package io.jetstream.kafka.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.testing.Fuzz;
import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import io.jetstream.kafka.core.wire.ProtocolException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * Mutated and random batch payloads, for every codec: decoding either returns a batch or throws
 * {@link ProtocolException}; never another exception, never an out-of-memory. Most mutants get a
 * recomputed CRC so they reach the decompressors and the record parser (a CRC is no defence
 * against a malicious peer, only against corruption).
 */
class BatchDecoderFuzzTest {

    private static final int TRIES = Fuzz.tries();

    private final BatchDecoder decoder = new BatchDecoder(new BatchLimits(4 << 20, 10_000, 50_000));
    private final List<EncodedBatch> corpus = corpus();

    @Test
    void mutatedPayloadsAndHeadersNeverEscapeAsAnotherException() {
        Fuzz fuzz = new Fuzz("batch payload fuzz");
        for (int i = 0; i < TRIES; i++) {
            SplittableRandom random = fuzz.random(i);
            EncodedBatch mutant = mutate(random, fuzz);
            try {
                RecordBatch batch = decoder.decode(mutant);
                assertThat(batch.size()).isEqualTo(mutant.recordCount());
                fuzz.accepted();
            } catch (ProtocolException e) {
                fuzz.rejected(e);
            } catch (Throwable t) {
                throw new AssertionError(fuzz.where(i) + ": " + mutant + " payload "
                        + ProtocolArbitraries.hex(bytes(mutant), 256) + " raised " + t, t);
            }
        }
        System.out.println(fuzz.summary());
        assertThat(fuzz.cases()).isEqualTo(TRIES);
        assertThat(fuzz.acceptedCount()).as("some mutants stay valid").isPositive();
        assertThat(fuzz.rejectedByKind()).containsKeys(ProtocolException.Kind.BAD_CRC,
                ProtocolException.Kind.DECOMPRESSION_FAILED, ProtocolException.Kind.MALFORMED,
                ProtocolException.Kind.TRUNCATED);
    }

    private EncodedBatch mutate(SplittableRandom random, Fuzz fuzz) {
        EncodedBatch base = corpus.get(random.nextInt(corpus.size()));
        byte[] payload = bytes(base);
        int strategy = random.nextInt(7);
        switch (strategy) {
            case 0: {
                fuzz.strategy("bit-flips");
                int flips = 1 + random.nextInt(8);
                for (int f = 0; f < flips && payload.length > 0; f++) {
                    payload[random.nextInt(payload.length)] ^= (byte) (1 << random.nextInt(8));
                }
                break;
            }
            case 1: {
                fuzz.strategy("byte-overwrites");
                int writes = 1 + random.nextInt(4);
                for (int w = 0; w < writes && payload.length > 0; w++) {
                    payload[random.nextInt(payload.length)] = (byte) random.nextInt(256);
                }
                break;
            }
            case 2:
                fuzz.strategy("truncation");
                payload = Arrays.copyOf(payload, payload.length == 0 ? 0 : random.nextInt(payload.length));
                break;
            case 3: {
                fuzz.strategy("extension");
                int extra = 1 + random.nextInt(32);
                int old = payload.length;
                payload = Arrays.copyOf(payload, old + extra);
                for (int e = old; e < payload.length; e++) {
                    payload[e] = (byte) random.nextInt(256);
                }
                break;
            }
            case 4: {
                fuzz.strategy("random-bytes");
                payload = new byte[random.nextInt(600)];
                random.nextBytes(payload);
                break;
            }
            case 5: {
                fuzz.strategy("splice");
                byte[] other = bytes(corpus.get(random.nextInt(corpus.size())));
                if (payload.length > 0 && other.length > 0) {
                    int at = random.nextInt(payload.length);
                    int from = random.nextInt(other.length);
                    int len = Math.min(payload.length - at, other.length - from);
                    System.arraycopy(other, from, payload, at, random.nextInt(len + 1));
                }
                break;
            }
            default:
                fuzz.strategy("header-only");
                break;
        }
        boolean recomputeCrc = random.nextInt(100) < 85;
        int crc = recomputeCrc ? PayloadChecksum.crc32c(ByteBuffer.wrap(payload)) : base.crc32c();
        int size = base.uncompressedSize();
        int count = base.recordCount();
        long first = base.firstOffset();
        long last = base.lastOffset();
        CompressionCodec codec = base.codec();
        if (strategy == 6 || random.nextInt(100) < 15) {
            switch (random.nextInt(5)) {
                case 0:
                    size = random.nextBoolean() ? random.nextInt() : size + random.nextInt(-8, 9);
                    break;
                case 1:
                    count = random.nextBoolean() ? random.nextInt() : count + random.nextInt(-2, 3);
                    break;
                case 2:
                    first += random.nextInt(-2, 3);
                    break;
                case 3:
                    last = random.nextLong();
                    break;
                default:
                    codec = CompressionCodec.values()[random.nextInt(CompressionCodec.values().length)];
                    break;
            }
        }
        return new EncodedBatch(base.topic(), base.partition(), base.prevOffset(), first, last, count, codec, size, crc,
                ByteBuffer.wrap(payload));
    }

    private static List<EncodedBatch> corpus() {
        Random random = new Random(11);
        List<RecordBatch> batches = new ArrayList<>();
        batches.add(new RecordBatch("empty", 0, 5, List.of()));
        batches.add(new RecordBatch("one", 1, -1, List.of(new ReplicatedRecord(0, 0, null, null))));
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            List<RecordHeader> headers = i % 3 == 0 ? List.of()
                    : List.of(new RecordHeader("trace-" + (i % 4), ProtocolArbitraries.letters(random, i % 7)),
                            new RecordHeader("source", null));
            records.add(new ReplicatedRecord(1000 + i * (i % 5 == 0 ? 7 : 1), 1_700_000_000_000L + i * 13,
                    TimestampType.values()[i % 3], i % 6 == 0 ? null : ProtocolArbitraries.letters(random, 8),
                    i % 9 == 0 ? null : ProtocolArbitraries.letters(random, 20 + i * 5), headers));
        }
        batches.add(new RecordBatch("many", 7, 999, records));
        List<EncodedBatch> corpus = new ArrayList<>();
        BatchEncoder encoder = new BatchEncoder();
        for (RecordBatch batch : batches) {
            for (CompressionCodec codec : CompressionCodec.values()) {
                EncodedBatch encoded = encoder.encode(batch, codec);
                // Copy: the encoder's buffer is reused by the next encode.
                corpus.add(new EncodedBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(),
                        encoded.firstOffset(), encoded.lastOffset(), encoded.recordCount(), encoded.codec(),
                        encoded.uncompressedSize(), encoded.crc32c(), ByteBuffer.wrap(bytes(encoded))));
            }
        }
        return corpus;
    }

    private static byte[] bytes(EncodedBatch encoded) {
        byte[] bytes = new byte[encoded.payloadSize()];
        encoded.payload().duplicate().get(bytes);
        return bytes;
    }
}
