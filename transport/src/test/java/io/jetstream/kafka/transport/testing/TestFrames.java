package io.jetstream.kafka.transport.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.netty.buffer.ByteBufAllocator;

/** Real BATCH frames for tests: encoded with the core codec, so CRCs and counts are right. */
public final class TestFrames {

    private TestFrames() {
    }

    /** An unrouted batch of {@code records} records of {@code valueBytes} bytes, offsets from {@code prevOffset + 1}. */
    public static BatchFrame batch(String stream, long id, String origin, String destination, String topic,
                                   int partition, long prevOffset, int records, int valueBytes, ByteBufAllocator alloc) {
        List<ReplicatedRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueBytes];
            for (int b = 0; b < valueBytes; b++) {
                value[b] = (byte) ('A' + (b + i) % 26);
            }
            list.add(new ReplicatedRecord(prevOffset + 1 + i, 1_700_000_000_000L + i,
                    ("k" + i).getBytes(StandardCharsets.UTF_8), value));
        }
        EncodedBatch encoded = new BatchEncoder().encode(new RecordBatch(topic, partition, prevOffset, list),
                CompressionCodec.NONE);
        return BatchFrame.copyOf(RoutingHeader.unrouted(stream, id, origin, destination), encoded,
                System.currentTimeMillis(), alloc);
    }

    /** A small batch: one record of 16 bytes. */
    public static BatchFrame small(long id, ByteBufAllocator alloc) {
        return batch("demo", id, "sender-1", "site-b", "orders", 0, id - 1, 1, 16, alloc);
    }
}
