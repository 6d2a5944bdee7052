package io.jetstream.kafka.testkit.docker;

/**
 * No Docker engine can run here: no docker CLI, no daemon answering and no {@code dockerd} to
 * start, or one that would not start. The message says which, for the test's loud skip line.
 */
public final class DockerUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    public DockerUnavailableException(String message) {
        super(message);
    }

    public DockerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
