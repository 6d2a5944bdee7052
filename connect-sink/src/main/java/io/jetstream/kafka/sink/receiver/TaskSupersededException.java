package io.jetstream.kafka.sink.receiver;

/**
 * A relay gave this destination-site task's share to a newer subscriber (a later instance of the
 * same task, or a holder of the subscriber token posing as one): thrown from the task's poll, it
 * fails the task so that the take-over is visible in the task's status. A left-over instance that
 * Connect has already cancelled reports nothing.
 */
public final class TaskSupersededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    TaskSupersededException(String message) {
        super(message);
    }
}
