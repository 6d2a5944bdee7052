package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Upstream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The one answer to a BATCHES frame, made of its sections' answers. {@link Intake} queues each
 * section as a batch of its own whose way back is a {@link Section} of this answer, so every stage
 * answers a section as it would a batch (at once when refused or a duplicate; after a commit, or
 * once its predecessor arrived, when written), and {@link Answers#send} hands that answer here
 * instead of signing and sending it. Once every section is answered, the frame's answer leaves
 * through {@link Answers#send} on the relay connection the frame came from, signed there: OK when
 * every section's answer is OK (DUPLICATE included), else a NACK with the reason of the first
 * section not accepted, in section order. A frame then costs one acknowledgement and one MAC
 * however many partitions it carries (issue 30).
 *
 * <p>Keeps none of the frame's buffers: only its OK, of which the NACK is made. Thread-safe:
 * sections are answered on the task thread and on the threads that prove durability; a section
 * answered twice counts once.
 */
final class FrameAnswer {

    /** What the factories of {@link AckFrame} cut a message to, so that it always fits its wire field. */
    private static final int MAX_MESSAGE_CHARS = 1024;

    private final Answers answers;
    private final Upstream to;
    private final AckFrame ok;
    private final AtomicReferenceArray<AckFrame> sectionAnswers;
    private final AtomicInteger unanswered;

    /** The answer to {@code frame}, which came from {@code to}; the frame is not retained. */
    FrameAnswer(Answers answers, Upstream to, BatchesFrame frame) {
        this.answers = Objects.requireNonNull(answers, "answers");
        this.to = Objects.requireNonNull(to, "to");
        this.ok = AckFrame.ok(frame);
        this.sectionAnswers = new AtomicReferenceArray<>(frame.sectionCount());
        this.unanswered = new AtomicInteger(frame.sectionCount());
    }

    /** The way back of section {@code index} (as in {@link BatchesFrame#section(int)}). */
    Section section(int index) {
        Objects.checkIndex(index, sectionAnswers.length());
        return new Section(this, index);
    }

    private void answered(int index, AckFrame ack) {
        if (sectionAnswers.compareAndSet(index, null, ack) && unanswered.decrementAndGet() == 0) {
            answers.send(to, frameAnswer());
        }
    }

    /** OK, or a NACK naming how many sections were not accepted and the first of them. All are answered. */
    private AckFrame frameAnswer() {
        AckFrame firstRefused = null;
        int refused = 0;
        for (int i = 0; i < sectionAnswers.length(); i++) {
            AckFrame ack = sectionAnswers.get(i);
            if (!ack.isOk()) {
                refused++;
                if (firstRefused == null) {
                    firstRefused = ack;
                }
            }
        }
        if (firstRefused == null) {
            return ok;
        }
        String message = refused + " of " + sectionAnswers.length() + " sections not accepted; the first, "
                + firstRefused.topic() + "-" + firstRefused.partition() + ": " + firstRefused.message();
        return new AckFrame(ok.streamId(), ok.originNodeId(), ok.batchId(), AckStatus.NACK, firstRefused.reason(),
                ok.topic(), ok.partition(), ok.lastOffset(),
                message.length() <= MAX_MESSAGE_CHARS ? message : message.substring(0, MAX_MESSAGE_CHARS));
    }

    /**
     * One section's way back: its answer goes into its frame's answer, unsigned and never sent on its
     * own ({@link Answers#send}). Pausing it pauses the frame's relay connection.
     *
     * <p>Equal to the same section of another copy of the frame (same origin and id) that came on the
     * same relay connection: a frame re-sent while its first copy waits for durability then has each
     * such section acknowledged once, into the first copy's answer (see {@code Sequencing.AckTarget}),
     * which is the answer its sender waits for, and the waiting acknowledgements do not grow with
     * every copy.
     */
    static final class Section implements Upstream {
        private final FrameAnswer frame;
        private final int index;

        private Section(FrameAnswer frame, int index) {
            this.frame = frame;
            this.index = index;
        }

        @Override
        public String name() {
            return frame.to.name();
        }

        @Override
        public void sendAck(AckFrame ack) {
            frame.answered(index, ack);
        }

        @Override
        public void pauseReading() {
            frame.to.pauseReading();
        }

        @Override
        public void resumeReading() {
            frame.to.resumeReading();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Section other && index == other.index && frame.to == other.frame.to
                    && frame.ok.batchId() == other.frame.ok.batchId()
                    && frame.ok.originNodeId().equals(other.frame.ok.originNodeId());
        }

        @Override
        public int hashCode() {
            return Objects.hash(System.identityHashCode(frame.to), frame.ok.batchId(), frame.ok.originNodeId(), index);
        }
    }
}
