package io.jetstream.kafka.testkit.workload;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Builds the record with sequence id {@code seq} of a run, deterministically from {@code seq}:
 * <ul>
 *   <li>partition {@code seq % partitions}; explicit timestamp {@code baseTimestamp + seq} (strictly increasing), or
 *       the wall-clock time of {@link #create} when the spec asks for wall-clock timestamps;</li>
 *   <li>key {@code key-<seq % 1024>} (keys repeat, like entity ids), null for every {@code nullKeyEvery}-th record;</li>
 *   <li>value of exactly {@code valueBytes} upper-case words after a {@code seq=…;} prefix, text-like so compression
 *       has work to do, or (with {@link WorkloadSpec.ValueContent#RANDOM_LETTERS}) uniformly random letters A-Z
 *       drawn from a generator seeded by {@code seq}; null for every {@code nullValueEvery}-th record;</li>
 *   <li>headers {@link #RUN_HEADER} and {@link #SEQUENCE_HEADER} (8 bytes, big-endian), which the verifier matches
 *       on, then {@code extraHeaders} more: {@code origin}, {@code trace-id}, then {@code h2}, {@code h3}, … whose
 *       values alternate with null.</li>
 * </ul>
 * Thread-safe (stateless after construction).
 */
public final class RecordFactory {

    /** Header carrying the run id, so records of other runs in the same topic are told apart. */
    public static final String RUN_HEADER = "js.run";
    /** Header carrying the sequence id as an 8-byte big-endian long. */
    public static final String SEQUENCE_HEADER = "js.seq";

    private static final int DISTINCT_KEYS = 1024;
    private static final String[] WORDS = {
        "ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT", "GOLF", "HOTEL", "INDIA", "JULIETT", "KILO", "LIMA",
        "MIKE", "NOVEMBER", "OSCAR", "PAPA", "QUEBEC", "ROMEO", "SIERRA", "TANGO", "UNIFORM", "VICTOR", "WHISKEY",
        "XRAY", "YANKEE", "ZULU", "ORDER", "PAYMENT", "SHIPPED", "CREATED", "UPDATED", "CANCELLED",
    };

    private final WorkloadSpec spec;
    private final String runId;
    private final byte[] runIdBytes;
    private final long baseTimestamp;

    public RecordFactory(WorkloadSpec spec, String runId, long baseTimestamp) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.runId = Objects.requireNonNull(runId, "runId");
        this.runIdBytes = runId.getBytes(StandardCharsets.UTF_8);
        this.baseTimestamp = baseTimestamp;
    }

    public String runId() {
        return runId;
    }

    public ProducerRecord<byte[], byte[]> create(long seq) {
        int partition = (int) (seq % spec.partitions());
        long timestamp = spec.wallClockTimestamps() ? System.currentTimeMillis() : baseTimestamp + seq;
        return new ProducerRecord<>(spec.topic(), partition, timestamp, key(seq), value(seq), headers(seq));
    }

    /**
     * Bytes of record data of record {@code seq}: key, value, and every header's key (UTF-8) and value, as the
     * benchmarks count "records MB"; computed without building the record.
     */
    public long recordBytes(long seq) {
        long bytes = 0;
        if (!isEvery(seq, spec.nullKeyEvery())) {
            bytes += 4 + Long.toString(seq % DISTINCT_KEYS).length();
        }
        if (!isEvery(seq, spec.nullValueEvery())) {
            bytes += spec.valueBytes();
        }
        bytes += RUN_HEADER.length() + runIdBytes.length + SEQUENCE_HEADER.length() + Long.BYTES;
        for (Header header : extraHeaders(seq)) {
            bytes += header.key().getBytes(StandardCharsets.UTF_8).length
                    + (header.value() == null ? 0 : header.value().length);
        }
        return bytes;
    }

    byte[] key(long seq) {
        if (isEvery(seq, spec.nullKeyEvery())) {
            return null;
        }
        return ("key-" + seq % DISTINCT_KEYS).getBytes(StandardCharsets.US_ASCII);
    }

    byte[] value(long seq) {
        if (isEvery(seq, spec.nullValueEvery())) {
            return null;
        }
        byte[] value = new byte[spec.valueBytes()];
        if (spec.valueContent() == WorkloadSpec.ValueContent.RANDOM_LETTERS) {
            return randomLetters(value, seq);
        }
        byte[] prefix = String.format("seq=%012d;", seq).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(prefix, 0, value, 0, prefix.length);
        long state = seq * 0x9E3779B97F4A7C15L + 1;
        int at = prefix.length;
        while (at < value.length) {
            state ^= state << 13;
            state ^= state >>> 7;
            state ^= state << 17;
            byte[] word = WORDS[(int) ((state >>> 1) % WORDS.length)].getBytes(StandardCharsets.US_ASCII);
            int n = Math.min(word.length, value.length - at);
            System.arraycopy(word, 0, value, at, n);
            at += n;
            if (at < value.length) {
                value[at++] = ' ';
            }
        }
        return value;
    }

    /** Fills {@code value} with letters A-Z, uniformly (rejection sampling on 5-bit draws), seeded by {@code seq}. */
    private static byte[] randomLetters(byte[] value, long seq) {
        long state = seq * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        int at = 0;
        while (at < value.length) {
            state ^= state << 13;
            state ^= state >>> 7;
            state ^= state << 17;
            long bits = state;
            for (int draw = 0; draw < 12 && at < value.length; draw++, bits >>>= 5) {
                int letter = (int) (bits & 31);
                if (letter < 26) {
                    value[at++] = (byte) ('A' + letter);
                }
            }
        }
        return value;
    }

    List<Header> headers(long seq) {
        List<Header> headers = new ArrayList<>(2 + spec.extraHeaders());
        headers.add(new RecordHeader(RUN_HEADER, runIdBytes));
        headers.add(new RecordHeader(SEQUENCE_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(0, seq).array()));
        headers.addAll(extraHeaders(seq));
        return headers;
    }

    private List<Header> extraHeaders(long seq) {
        List<Header> headers = new ArrayList<>(spec.extraHeaders());
        for (int i = 0; i < spec.extraHeaders(); i++) {
            headers.add(extraHeader(seq, i));
        }
        return headers;
    }

    private static Header extraHeader(long seq, int index) {
        return switch (index) {
            case 0 -> new RecordHeader("origin", "workload".getBytes(StandardCharsets.US_ASCII));
            case 1 -> new RecordHeader("trace-id",
                    String.format("%016x", seq * 0xBF58476D1CE4E5B9L).getBytes(StandardCharsets.US_ASCII));
            default -> new RecordHeader("h" + index, (seq + index) % 2 == 0
                    ? null
                    : ("v" + index + "-" + seq % 97).getBytes(StandardCharsets.US_ASCII));
        };
    }

    private static boolean isEvery(long seq, int every) {
        return every > 0 && (seq + 1) % every == 0;
    }

    /** The sequence id in a {@link #SEQUENCE_HEADER} value, or -1 if it is not 8 bytes. */
    public static long decodeSequence(byte[] headerValue) {
        return headerValue == null || headerValue.length != Long.BYTES ? -1 : ByteBuffer.wrap(headerValue).getLong();
    }
}
