package io.jetstream.kafka.core.protocol.integrity;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * End-to-end integrity of what the destination relies on and of its answers: HMAC-SHA256 with a
 * key both connectors hold and no relay does ({@code integrity.key}). The source-site connector
 * signs each BATCH and TOPIC_METADATA, the destination-site connector each ACK it sends; relays
 * route on the rest of the frame and carry the MAC unchanged ({@link FrameMac}).
 *
 * <h2>What a MAC covers</h2>
 * A domain label first, so that no MAC of one kind of frame verifies as another, then the fields
 * in this order, each in a canonical encoding (integers big-endian at their wire width, strings as
 * an {@code int32} byte length and UTF-8, the payload as an {@code int32} length and its bytes), so
 * that no field boundary can be shifted:
 * <ul>
 *   <li>BATCH ({@value #BATCH_LABEL}): streamId, originNodeId, destination, batch id, topic,
 *       partition, prevOffset, firstOffset, lastOffset, recordCount, createdAtMillis, codec,
 *       uncompressedSize, crc32c, and the payload bytes themselves (a CRC is no defence against
 *       someone who chooses the bytes);</li>
 *   <li>BATCHES ({@value #BATCHES_LABEL}): streamId, originNodeId, destination, frame id,
 *       createdAtMillis, the section count and the sections' bytes (every section's fields and payload);</li>
 *   <li>TOPIC_METADATA ({@value #METADATA_LABEL}): streamId, originNodeId, destination, metadata id,
 *       topic, partitionCount, topicId (two {@code int64}), generation, the number of configs, each
 *       key and value (in key order);</li>
 *   <li>ACK ({@value #ACK_LABEL}): streamId, originNodeId, batch id, status, reason, topic, partition,
 *       lastOffset; not the free-text message.</li>
 * </ul>
 * Not covered: the path and hop index, which relays set on the way.
 *
 * <p>Thread-safety: thread-safe. {@link Mac} instances are not, so each thread that signs or
 * verifies gets its own (initialised once with the key).
 */
public final class FrameSigner {

    /** What checking a frame's MAC found. */
    public enum Verdict {
        /** The MAC is present and right. */
        VALID,
        /** The frame carries no MAC. */
        MISSING,
        /** The frame carries a MAC that is not the one its content and the key give. */
        WRONG
    }

    public static final String ALGORITHM = "HmacSHA256";

    /** Shortest key accepted, in bytes: HMAC-SHA256's own output length. */
    public static final int MIN_KEY_BYTES = 32;

    static final String BATCH_LABEL = "jetstream/batch/v1";
    static final String BATCHES_LABEL = "jetstream/batches/v1";
    static final String METADATA_LABEL = "jetstream/topic-metadata/v2";
    static final String ACK_LABEL = "jetstream/ack/v1";

    private final SecretKeySpec key;
    private final ThreadLocal<Input> inputs;

    /**
     * @param key at least {@value #MIN_KEY_BYTES} bytes (copied)
     * @throws IllegalArgumentException for a shorter key (the message does not contain it)
     */
    public FrameSigner(byte[] key) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("an integrity key needs at least " + MIN_KEY_BYTES
                    + " bytes, this one has " + key.length);
        }
        this.key = new SecretKeySpec(key, ALGORITHM);
        this.inputs = ThreadLocal.withInitial(() -> new Input(newMac(this.key)));
        inputs.get(); // fails here, not at the first frame, if the JVM lacks the algorithm
    }

    /** A signer whose key is the UTF-8 encoding of {@code secret} (a connector's {@code integrity.key}). */
    public static FrameSigner ofSecret(String secret) {
        return new FrameSigner(secret.getBytes(StandardCharsets.UTF_8));
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** The frame with its MAC; the payload reference moves to the result (release that one). */
    public BatchFrame sign(BatchFrame frame) {
        return frame.withMac(mac(frame.header(), frame.payload()));
    }

    /** The frame with its MAC; the body reference moves to the result (release that one). */
    public BatchesFrame sign(BatchesFrame frame) {
        return frame.withMac(mac(frame));
    }

    public TopicMetadataFrame sign(TopicMetadataFrame frame) {
        return frame.withMac(mac(frame));
    }

    public AckFrame sign(AckFrame ack) {
        return ack.withMac(mac(ack));
    }

    public Verdict verify(BatchFrame frame) {
        FrameMac carried = frame.header().mac();
        return carried.isPresent() ? verdict(carried, mac(frame.header(), frame.payload())) : Verdict.MISSING;
    }

    public Verdict verify(BatchesFrame frame) {
        return frame.mac().isPresent() ? verdict(frame.mac(), mac(frame)) : Verdict.MISSING;
    }

    public Verdict verify(TopicMetadataFrame frame) {
        return frame.mac().isPresent() ? verdict(frame.mac(), mac(frame)) : Verdict.MISSING;
    }

    public Verdict verify(AckFrame ack) {
        return ack.mac().isPresent() ? verdict(ack.mac(), mac(ack)) : Verdict.MISSING;
    }

    private static Verdict verdict(FrameMac carried, FrameMac expected) {
        return carried.matches(expected.bytes()) ? Verdict.VALID : Verdict.WRONG;
    }

    /**
     * The MAC of a batch: its header (the MAC field, path and hop excepted) and the readable bytes
     * of {@code payload}, read in place (no copy; neither the reader index nor the reference count
     * changes).
     */
    public FrameMac mac(BatchHeader header, ByteBuf payload) {
        Input in = inputs.get().start();
        RoutingHeader routing = header.routing();
        in.string(BATCH_LABEL);
        in.string(routing.streamId());
        in.string(routing.originNodeId());
        in.string(routing.destination());
        in.int64(routing.id());
        in.string(header.topic());
        in.int32(header.partition());
        in.int64(header.prevOffset());
        in.int64(header.firstOffset());
        in.int64(header.lastOffset());
        in.int32(header.recordCount());
        in.int64(header.createdAtMillis());
        in.int8(header.codec().id());
        in.int32(header.uncompressedSize());
        in.int32(header.crc32c());
        in.bytes(payload);
        return in.finish();
    }

    /**
     * The MAC of a BATCHES frame: its routing (path and hop excepted), id, creation time, section count
     * and the sections' bytes as they are on the wire (each section's fields and payload; the
     * decoder reads them strictly, so no two section lists have the same bytes), read in place.
     */
    public FrameMac mac(BatchesFrame frame) {
        Input in = inputs.get().start();
        RoutingHeader routing = frame.routing();
        in.string(BATCHES_LABEL);
        in.string(routing.streamId());
        in.string(routing.originNodeId());
        in.string(routing.destination());
        in.int64(routing.id());
        in.int64(frame.createdAtMillis());
        in.int32(frame.sectionCount());
        in.bytes(frame.body());
        return in.finish();
    }

    /** The MAC of topic metadata: everything but the MAC field, path and hop. */
    public FrameMac mac(TopicMetadataFrame frame) {
        Input in = inputs.get().start();
        RoutingHeader routing = frame.routing();
        in.string(METADATA_LABEL);
        in.string(routing.streamId());
        in.string(routing.originNodeId());
        in.string(routing.destination());
        in.int64(routing.id());
        in.string(frame.topic());
        in.int32(frame.partitionCount());
        in.int64(frame.topicId().getMostSignificantBits());
        in.int64(frame.topicId().getLeastSignificantBits());
        in.int64(frame.generation());
        in.int32(frame.configs().size());
        for (Map.Entry<String, String> config : frame.configs().entrySet()) { // sorted by key
            in.string(config.getKey());
            in.string(config.getValue());
        }
        return in.finish();
    }

    /** The MAC of an acknowledgement: everything but the message and the MAC field. */
    public FrameMac mac(AckFrame ack) {
        Input in = inputs.get().start();
        in.string(ACK_LABEL);
        in.string(ack.streamId());
        in.string(ack.originNodeId());
        in.int64(ack.batchId());
        in.int8(ack.status().code());
        in.int8(ack.reason().code());
        in.string(ack.topic());
        in.int32(ack.partition());
        in.int64(ack.lastOffset());
        return in.finish();
    }

    @Override
    public String toString() {
        return "FrameSigner[" + ALGORITHM + ", key <redacted>]";
    }

    /** One thread's {@link Mac} and scratch space for the canonical encoding. */
    private static final class Input {
        private final Mac mac;
        private final byte[] scratch = new byte[8];

        Input(Mac mac) {
            this.mac = mac;
        }

        /** Forgets anything left by a computation that failed half-way (a no-op after {@link #finish}). */
        Input start() {
            mac.reset();
            return this;
        }

        void int8(int value) {
            mac.update((byte) value);
        }

        void int32(int value) {
            scratch[0] = (byte) (value >>> 24);
            scratch[1] = (byte) (value >>> 16);
            scratch[2] = (byte) (value >>> 8);
            scratch[3] = (byte) value;
            mac.update(scratch, 0, 4);
        }

        void int64(long value) {
            for (int i = 0; i < 8; i++) {
                scratch[i] = (byte) (value >>> (56 - 8 * i));
            }
            mac.update(scratch, 0, 8);
        }

        void string(String value) {
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            int32(utf8.length);
            mac.update(utf8);
        }

        /** Length, then the readable bytes, through NIO views of the buffer's memory (no copy of the payload). */
        void bytes(ByteBuf buffer) {
            int length = buffer.readableBytes();
            int32(length);
            if (length == 0) {
                return;
            }
            for (ByteBuffer view : buffer.nioBuffers(buffer.readerIndex(), length)) {
                mac.update(view);
            }
        }

        /** The MAC of everything since the last one; the {@link Mac} is ready for the next. */
        FrameMac finish() {
            return FrameMac.of(mac.doFinal());
        }
    }
}
