package io.jetstream.kafka.sink.receiver;

/**
 * A gap in an origin partition that the source could not vouch for and the destination was told
 * not to accept ({@code offset.gap.policy=fail}): thrown from the task's poll, it fails the task.
 * The message names the origin topic, partition and offset range.
 */
public final class OffsetGapException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    OffsetGapException(String message) {
        super(message);
    }
}
