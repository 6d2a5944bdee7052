package io.jetstream.kafka.testkit.site;

/** A Connect REST call answered with an error status; the message holds Connect's own message. */
public final class ConnectRestException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private final int status;

    public ConnectRestException(String request, int status, String body) {
        super(request + " answered HTTP " + status + ": " + body);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
