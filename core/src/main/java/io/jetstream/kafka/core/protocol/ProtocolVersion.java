package io.jetstream.kafka.core.protocol;

/**
 * Versions of the frame protocol.
 *
 * <p>Rule: the first two bytes of a HELLO body are the version, in every version, forever. A peer
 * that supports the version answers HELLO_OK carrying it; otherwise it answers
 * {@code ERROR(UNSUPPORTED_VERSION)} naming the versions it supports and closes, and the client
 * may reconnect with another version. The agreed version governs every later frame on the
 * connection. Any change to a frame layout, a new frame type or a new value in an enumerated field
 * (codec, reason, error code, role) requires a new version, unless a HELLO flag asks for it (the
 * receipts of {@link HelloFrame#FLAG_RECEIPTS}; the MAC fields of {@link HelloFrame#FLAG_MACS},
 * taken in HELLO_OK): within a version, decoders are strict and reject what they do not know.
 * {@code docs/protocol.md} section 3.
 *
 * <p>History: 1, the first; 2, TOPIC_METADATA carries the origin topic's id and a generation
 * (stale metadata is never applied). A version 2 node speaks only 2: a version 1 peer would send
 * or expect metadata without a generation, which the destination can neither order nor trust, so
 * it is refused at HELLO with {@code UNSUPPORTED_VERSION} naming the supported version; 3, the
 * BATCHES frame (the batches of several partitions under one header, MAC and acknowledgement) and the
 * {@code MIXED_SHARES} NACK. A version 3 node speaks only 3: a version 2 relay would refuse BATCHES as
 * an unknown frame type in the middle of a route, so it is refused at HELLO instead, with the same error.
 */
public final class ProtocolVersion {

    /** The version this build speaks. */
    public static final int CURRENT = 3;

    public static final int MIN_SUPPORTED = 3;

    public static final int MAX_SUPPORTED = 3;

    private ProtocolVersion() {
    }

    public static boolean isSupported(int version) {
        return version >= MIN_SUPPORTED && version <= MAX_SUPPORTED;
    }

    /** For error messages: "1" or "1..3". */
    public static String supportedRange() {
        return MIN_SUPPORTED == MAX_SUPPORTED ? Integer.toString(MIN_SUPPORTED) : MIN_SUPPORTED + ".." + MAX_SUPPORTED;
    }
}
