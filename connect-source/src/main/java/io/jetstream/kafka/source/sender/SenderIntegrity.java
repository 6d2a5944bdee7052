package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.connect.common.config.IntegrityConfigs;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import java.util.Optional;

/**
 * The source's end of end-to-end integrity ({@code integrity.key}): signs every batch, BATCHES frame
 * and topic metadata, and tells which answers may be taken at their word. An answer that ends the
 * sender's hold on a batch ({@link AckFrame#isFinal()}: OK, which commits it, or a NACK that
 * re-sending cannot help, which stops the task or, for a BATCHES frame, sends its batches alone)
 * counts only with the destination's valid MAC and only when it names the batch as sent (stream,
 * topic, partition, last offset) or the frame as sent (stream, first topic, partition and offset -1);
 * anything else may come from a relay on the path, so it is taken for a retriable NACK. Retriable NACKs and receipts, which relays make themselves, only delay or time
 * a batch and are taken unsigned.
 *
 * <p>Off ({@link #OFF}): nothing is signed, every answer is taken. Thread-safe.
 */
public final class SenderIntegrity {

    public static final SenderIntegrity OFF = new SenderIntegrity(null);

    private final FrameSigner signer;

    private SenderIntegrity(FrameSigner signer) {
        this.signer = signer;
    }

    public static SenderIntegrity of(FrameSigner signer) {
        return new SenderIntegrity(signer);
    }

    /** From the task's configuration: {@link #OFF} without a key. */
    public static SenderIntegrity of(Optional<byte[]> key) {
        return key.map(k -> of(new FrameSigner(k))).orElse(OFF);
    }

    public boolean enabled() {
        return signer != null;
    }

    /** The batch with its MAC (the payload reference moves to the result); unchanged when off. */
    BatchFrame sign(BatchFrame batch) {
        return signer == null ? batch : signer.sign(batch);
    }

    /** The BATCHES frame with its MAC (the body reference moves to the result); unchanged when off. */
    BatchesFrame sign(BatchesFrame frame) {
        return signer == null ? frame : signer.sign(frame);
    }

    TopicMetadataFrame sign(TopicMetadataFrame metadata) {
        return signer == null ? metadata : signer.sign(metadata);
    }

    /**
     * Why a final answer for the batch {@code sent} cannot be believed, or null when it can (always
     * when off, and for answers that are not final).
     */
    String distrust(AckFrame answer, BatchHeader sent) {
        if (signer == null || !answer.isFinal()) {
            return null;
        }
        String mac = macProblem(answer);
        if (mac != null) {
            return mac;
        }
        // The destination signs what it received: an answer about a batch altered on the way names
        // what was altered (when it is one of these fields) and so is no answer about the batch sent.
        boolean describesTheBatchSent = answer.streamId().equals(sent.routing().streamId())
                && answer.topic().equals(sent.topic()) && answer.partition() == sent.partition()
                && answer.lastOffset() == sent.lastOffset();
        return describesTheBatchSent ? null : "it is signed but names stream " + answer.streamId() + ", "
                + answer.topic() + "-" + answer.partition() + " up to offset " + answer.lastOffset()
                + ", not the batch sent (stream " + sent.routing().streamId() + ", " + sent.topic() + "-"
                + sent.partition() + " up to " + sent.lastOffset() + ")";
    }

    /**
     * Why a final answer for the BATCHES frame {@code sent} cannot be believed, or null when it can
     * (always when off, and for answers that are not final). An answer to a frame names its stream,
     * its first section's topic, partition -1 and last offset -1 ({@link AckFrame#ok(BatchesFrame)}).
     */
    String distrust(AckFrame answer, FramesInFlight.SentFrame sent) {
        if (signer == null || !answer.isFinal()) {
            return null;
        }
        String mac = macProblem(answer);
        if (mac != null) {
            return mac;
        }
        boolean describesTheFrameSent = answer.streamId().equals(sent.streamId())
                && answer.topic().equals(sent.firstTopic()) && answer.partition() == -1 && answer.lastOffset() == -1;
        return describesTheFrameSent ? null : "it is signed but names stream " + answer.streamId() + ", "
                + answer.topic() + "-" + answer.partition() + " up to offset " + answer.lastOffset()
                + ", not the frame sent (stream " + sent.streamId() + ", first topic " + sent.firstTopic()
                + ", partition -1, offset -1)";
    }

    /** Why an OK for topic metadata cannot be believed, or null when it can. */
    String distrust(AckFrame metadataAnswer) {
        if (signer == null || !metadataAnswer.isOk()) {
            return null;
        }
        return macProblem(metadataAnswer);
    }

    private String macProblem(AckFrame answer) {
        switch (signer.verify(answer)) {
            case VALID:
                return null;
            case MISSING:
                return "it carries no MAC: a relay's own answer (relays never sign; e.g. an ingress relay refusing "
                        + "the batch as MALFORMED_BATCH), one made up on the way, or one whose MAC a relay built "
                        + "before end-to-end MACs dropped";
            case WRONG:
            default:
                return "its MAC does not verify: made up or altered on the way, or the destination-site connector's "
                        + IntegrityConfigs.KEY + " differs from this one's";
        }
    }

    @Override
    public String toString() {
        return signer == null ? "integrity off" : "integrity on";
    }
}
