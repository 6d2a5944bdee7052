package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.connect.common.config.IntegrityConfigs;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import java.util.Optional;

/**
 * The destination's end of end-to-end integrity ({@code integrity.key}): checks the source's MAC of
 * each batch, BATCHES frame (one MAC over all its sections) and topic metadata before anything in it
 * is used, and signs every acknowledgement this task sends, so that the source takes its answers at
 * their word and no relay can forge them.
 *
 * <p>Off ({@link #OFF}): nothing is checked or signed. With a key and {@code integrity.required}
 * (the default with a key), a frame without a MAC is refused; without {@code integrity.required}
 * (enabling integrity on a running stream) it is taken; a frame with a wrong MAC is refused
 * either way.
 *
 * <p>Thread-safe ({@link FrameSigner} is).
 */
public final class FrameIntegrity {

    public static final FrameIntegrity OFF = new FrameIntegrity(null, false);

    private final FrameSigner signer;
    private final boolean required;

    private FrameIntegrity(FrameSigner signer, boolean required) {
        this.signer = signer;
        this.required = required;
    }

    /** With a key: checks and signs; {@code required}: refuses frames without a MAC. */
    static FrameIntegrity of(FrameSigner signer, boolean required) {
        return new FrameIntegrity(signer, required);
    }

    /** From the task's configuration: {@link #OFF} without a key. */
    public static FrameIntegrity of(Optional<byte[]> key, boolean required) {
        return key.map(k -> of(new FrameSigner(k), required)).orElse(OFF);
    }

    boolean enabled() {
        return signer != null;
    }

    public boolean required() {
        return required;
    }

    /** Why the batch must be refused, or null when it may be used. Reads the payload (the MAC covers it). */
    String problem(BatchFrame batch) {
        return signer == null ? null : problem(signer.verify(batch), "batch");
    }

    /**
     * Why the whole BATCHES frame must be refused, or null when its sections may be used. Reads the
     * body (the one MAC covers every section): its sections carry no MAC of their own.
     */
    String problem(BatchesFrame frame) {
        return signer == null ? null : problem(signer.verify(frame), "BATCHES frame");
    }

    /** Why the topic metadata must be refused, or null when it may be applied. */
    String problem(TopicMetadataFrame metadata) {
        return signer == null ? null : problem(signer.verify(metadata), "topic metadata");
    }

    private String problem(FrameSigner.Verdict verdict, String what) {
        switch (verdict) {
            case VALID:
                return null;
            case MISSING:
                return required ? "the " + what + " carries no MAC and this destination requires one ("
                        + IntegrityConfigs.REQUIRED + "): the source-site connector has no " + IntegrityConfigs.KEY
                        + ", or a relay on the path dropped the MAC (a relay built before end-to-end MACs, or a "
                        + "relay that removed it)" : null;
            case WRONG:
            default:
                return "the " + what + "'s MAC does not verify: it was altered on the way, or the source-site "
                        + "connector's " + IntegrityConfigs.KEY + " differs from this one's";
        }
    }

    /** The acknowledgement with this destination's MAC (unchanged when off). */
    AckFrame sign(AckFrame ack) {
        return signer == null ? ack : signer.sign(ack);
    }

    @Override
    public String toString() {
        return signer == null ? "integrity off" : required ? "integrity required" : "integrity checked, not required";
    }
}
