package io.jetstream.kafka.testkit.link;

/** The two independent directions of an emulated link, named from the proxy's point of view. */
public enum LinkDirection {
    /** Bytes sent by the connecting client towards the link's target. */
    CLIENT_TO_TARGET("c2t"),
    /** Bytes sent back by the target towards the connecting client. */
    TARGET_TO_CLIENT("t2c");

    private final String shortName;

    LinkDirection(String shortName) {
        this.shortName = shortName;
    }

    /** Short label for thread names and logs. */
    public String shortName() {
        return shortName;
    }
}
