package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Upstream;
import io.jetstream.kafka.transport.FrameBuffers;
import io.jetstream.kafka.transport.RetainedBuffers;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiver's first stage, on the relay connections' Netty threads: takes each frame a relay
 * delivers and queues batches for the task thread, bounded by {@code bufferMaxBytes} in wire bytes.
 * Once the queue holds half its bound, the connection a batch came from is no longer read
 * ({@link Upstream#pauseReading()}) until the task thread has drained the queue to a quarter: TCP
 * then holds the relay back, and the relay its upstreams, without a byte sent twice over the WAN.
 * Past the bound a batch is refused with a retriable OVERLOADED acknowledgement. Topic metadata,
 * its MAC checked, goes to the metadata applier; a relay's SUPERSEDED error is kept for the task
 * thread to fail on ({@link #superseded()}).
 *
 * <p>A BATCHES frame is taken or refused whole here (its stream, its one MAC, the queue's bound for
 * all its sections), then queued as one batch per section, each charged as a batch is: the later
 * stages handle a section as they would a batch, and its answer goes into the frame's one answer
 * ({@link FrameAnswer}). Its MAC is checked here, once for the frame, since its sections carry none
 * of their own.
 */
final class Intake implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationReceiver.class);

    /**
     * A batch waiting for the task thread, with where its answer goes, the bytes it is charged, and
     * whether its MAC was checked already: a section of a BATCHES frame, whose frame's MAC was, and
     * which has none of its own.
     */
    record Inbound(Upstream from, BatchFrame batch, long bytes, boolean integrityChecked) {
    }

    /** What a batch is charged in the queue beyond its payload: its header and queue entry, roughly. */
    private static final long OVERHEAD_BYTES = 128;

    private final String streamId;
    private final long bufferMaxBytes;
    private final SinkSiteMetrics metrics;
    private final FrameIntegrity integrity;
    private final Answers answers;
    private final Executor metadataApplier;
    private final BiConsumer<Upstream, TopicMetadataFrame> applyMetadata;
    private final LinkedBlockingQueue<Inbound> inbound = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    /** Connections not read while the queue drains. */
    private final Set<Upstream> paused = new HashSet<>();
    private volatile boolean closed;
    /** Set when a relay gave this task's share to a newer subscriber: poll fails the task, visibly. */
    private volatile String superseded;

    Intake(String streamId, long bufferMaxBytes, SinkSiteMetrics metrics, FrameIntegrity integrity, Answers answers,
           Executor metadataApplier, BiConsumer<Upstream, TopicMetadataFrame> applyMetadata) {
        this.streamId = streamId;
        this.bufferMaxBytes = bufferMaxBytes;
        this.metrics = metrics;
        this.integrity = integrity;
        this.answers = answers;
        this.metadataApplier = metadataApplier;
        this.applyMetadata = applyMetadata;
    }

    /** Takes a frame from a relay (Netty thread); owns and eventually releases it. */
    void onFrame(Upstream from, Frame frame) {
        if (closed) {
            ReferenceCountUtil.release(frame);
            return;
        }
        if (frame instanceof BatchFrame batch) {
            queue(from, batch);
        } else if (frame instanceof BatchesFrame batches) {
            queue(from, batches);
        } else if (frame instanceof TopicMetadataFrame metadata) {
            String integrityProblem = integrity.problem(metadata);
            if (integrityProblem != null) {
                answers.refuseForIntegrity(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, "integrity: "
                        + integrityProblem), "topic metadata of " + metadata.topic() + " (" + metadata.partitionCount()
                        + " partitions, id " + metadata.metadataId() + " from " + metadata.routing().originNodeId()
                        + ")", integrityProblem);
                return;
            }
            try {
                metadataApplier.execute(() -> applyMetadata.accept(from, metadata));
            } catch (RejectedExecutionException e) {
                answers.send(from, AckFrame.nack(metadata, AckReason.OVERLOADED, "topic metadata queue full"));
            }
        } else if (frame instanceof ErrorFrame error && error.code() == ErrorCode.SUPERSEDED) {
            superseded = "relay " + from.name() + " answered " + error.code() + ": " + error.message();
        } else {
            log.debug("Ignoring {} from relay {}", frame.type(), from.name());
            ReferenceCountUtil.release(frame);
        }
    }

    private void queue(Upstream from, BatchFrame batch) {
        long bytes = batch.payload().readableBytes() + OVERHEAD_BYTES;
        if (!batch.header().routing().streamId().equals(streamId)) {
            answers.refuse(from, batch, AckReason.NOT_AUTHORIZED, "stream " + batch.header().routing().streamId()
                    + " is not " + streamId);
            return;
        }
        // Only the queue is bounded here; the hold area has its own bound in offer(), which never
        // refuses a batch that applies now: refusing a predecessor because its successors fill
        // the hold area would hold them forever.
        if (queuedBytes.get() + bytes > bufferMaxBytes) {
            metrics.overloaded();
            answers.refuse(from, batch, AckReason.OVERLOADED, "destination task queue full");
            return;
        }
        metrics.batchTransit(System.currentTimeMillis() - batch.header().createdAtMillis());
        // A small batch read with a large frame would keep that frame's whole buffer alive while it
        // waits here, charged only its own bytes: copied out (large batches stay zero-copy).
        BatchFrame held = RetainedBuffers.detached(batch, bytes, FrameBuffers.ALLOCATOR);
        long queued = queuedBytes.addAndGet(bytes);
        enqueue(new Inbound(from, held, bytes, false));
        if (queued > pauseAboveBytes()) {
            pause(from);
        }
    }

    /**
     * Queues the frame's sections as batches whose answers make the frame's one answer, or refuses
     * the whole frame: another stream's, its MAC missing (where required) or wrong, or more than the
     * queue has room for. The sections are retained slices of the frame's body (copied out first, as a
     * batch's payload is, when it lies in a much larger buffer), which stays allocated until the task
     * thread has taken the last of them.
     */
    private void queue(Upstream from, BatchesFrame frame) {
        String stream = frame.routing().streamId();
        if (!stream.equals(streamId)) {
            answers.refuse(from, frame, AckReason.NOT_AUTHORIZED, "stream " + stream + " is not " + streamId);
            return;
        }
        String integrityProblem = integrity.problem(frame);
        if (integrityProblem != null) {
            try {
                answers.refuseForIntegrity(from, AckFrame.nack(frame, AckReason.NOT_AUTHORIZED, "integrity: "
                        + integrityProblem), "BATCHES frame " + frame.frameId() + " of " + frame.sectionCount()
                        + " sections (from " + frame.routing().originNodeId() + ")", integrityProblem);
            } finally {
                frame.release();
            }
            return;
        }
        long bytes = 0;
        for (BatchesFrame.Section section : frame.sections()) {
            bytes += section.payloadLength() + OVERHEAD_BYTES;
        }
        if (queuedBytes.get() + bytes > bufferMaxBytes) {
            metrics.overloaded();
            answers.refuse(from, frame, AckReason.OVERLOADED, "destination task queue full");
            return;
        }
        BatchesFrame held = RetainedBuffers.detached(frame, bytes, FrameBuffers.ALLOCATOR);
        long queued = 0;
        try {
            FrameAnswer answer = new FrameAnswer(answers, from, held);
            long transitMillis = System.currentTimeMillis() - held.createdAtMillis();
            for (int i = 0; i < held.sectionCount(); i++) {
                long sectionBytes = held.sections().get(i).payloadLength() + OVERHEAD_BYTES;
                BatchFrame section = held.section(i);
                metrics.batchTransit(transitMillis);
                queued = queuedBytes.addAndGet(sectionBytes);
                enqueue(new Inbound(answer.section(i), section, sectionBytes, true));
            }
        } finally {
            held.release();
        }
        // The connection itself, never a section's way back: resumeIfDrained reads again what paused lists.
        if (queued > pauseAboveBytes()) {
            pause(from);
        }
    }

    /**
     * Queues a batch, unless the queue was closed meanwhile: {@link #close()} may have emptied it
     * between this thread's check and now, and nothing would release what is added after that.
     */
    private void enqueue(Inbound in) {
        inbound.add(in);
        if (closed) {
            releaseQueued();
        }
    }

    /** Why the task must fail because a relay gave its share to a newer subscriber, or null. */
    String superseded() {
        return superseded;
    }

    /** The next queued batch, waiting up to {@code timeout} (task thread); null when none arrived. */
    Inbound next(Duration timeout) throws InterruptedException {
        return taken(inbound.poll(timeout.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** The next queued batch if one is there now, else null. */
    Inbound next() {
        return taken(inbound.poll());
    }

    private Inbound taken(Inbound in) {
        if (in == null) {
            return null;
        }
        if (closed) {
            ReferenceCountUtil.release(in.batch());
            return null;
        }
        queuedBytes.addAndGet(-in.bytes());
        return in;
    }

    /** Half the queue's bound: above it, the connection a batch came from is paused. */
    private long pauseAboveBytes() {
        return bufferMaxBytes / 2;
    }

    /**
     * Pausing and resuming happen under one lock, each with its change to {@link #paused}: a pause
     * on a Netty thread racing a resume on the task thread could otherwise leave a connection
     * paused that the set no longer lists, and nothing would ever resume it.
     */
    private void pause(Upstream from) {
        synchronized (paused) {
            if (paused.add(from)) {
                from.pauseReading();
            }
        }
    }

    /** Reads the paused connections again once the queue is down to a quarter of its bound. */
    void resumeIfDrained() {
        if (queuedBytes.get() > bufferMaxBytes / 4) {
            return;
        }
        synchronized (paused) {
            if (paused.isEmpty()) {
                return;
            }
            paused.forEach(Upstream::resumeReading);
            paused.clear();
        }
    }

    long queuedBytes() {
        return queuedBytes.get();
    }

    @Override
    public void close() {
        closed = true;
        releaseQueued();
    }

    private void releaseQueued() {
        Inbound in;
        while ((in = inbound.poll()) != null) {
            ReferenceCountUtil.release(in.batch());
        }
    }
}
