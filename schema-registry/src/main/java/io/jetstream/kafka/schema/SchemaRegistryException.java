package io.jetstream.kafka.schema;

/**
 * A registry call that failed, classified by what the caller can do about it: {@link Kind#UNAVAILABLE}
 * is worth retrying (connection refused or reset, timeout, HTTP 5xx or 429); the others are answers
 * of a registry that works.
 */
public final class SchemaRegistryException extends Exception {

    /** What the failure means for the caller. */
    public enum Kind {
        /** The registry could not be reached or did not answer properly; retry with backoff. */
        UNAVAILABLE(true),
        /** The subject, version or id does not exist (HTTP 404). */
        NOT_FOUND(false),
        /** The schema breaks the subject's compatibility rule (HTTP 409). */
        INCOMPATIBLE(false),
        /** The registry refuses the schema as invalid (HTTP 422). */
        INVALID(false),
        /** The credentials were refused (HTTP 401, 403). */
        UNAUTHORIZED(true),
        /** Any other answer. */
        OTHER(false);

        private final boolean retriable;

        Kind(boolean retriable) {
            this.retriable = retriable;
        }

        public boolean retriable() {
            return retriable;
        }
    }

    private final Kind kind;
    private final int status;

    public SchemaRegistryException(Kind kind, int status, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.status = status;
    }

    public SchemaRegistryException(Kind kind, int status, String message) {
        this(kind, status, message, null);
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status, or 0 when there was no answer. */
    public int status() {
        return status;
    }

    /** The kind an HTTP status stands for. */
    static Kind kindOf(int status) {
        if (status == 404) {
            return Kind.NOT_FOUND;
        }
        if (status == 409) {
            return Kind.INCOMPATIBLE;
        }
        if (status == 422) {
            return Kind.INVALID;
        }
        if (status == 401 || status == 403) {
            return Kind.UNAUTHORIZED;
        }
        if (status == 429 || status >= 500) {
            return Kind.UNAVAILABLE;
        }
        return Kind.OTHER;
    }
}
