package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.RoutingHeader;

/** A fixed batch header for tests that only care about the frame, not the payload. */
final class FrameSamplesHeaders {

    private FrameSamplesHeaders() {
    }

    static BatchHeader header() {
        return new BatchHeader(RoutingHeader.unrouted("stream", 1, "origin", "dest"), "topic", 0, -1, 0, 0, 1, 0,
                CompressionCodec.NONE, 8, 0);
    }
}
