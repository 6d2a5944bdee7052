package io.jetstream.kafka.relay.testing;

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

/** Real BATCH frames (core codec: CRC, counts and offsets are consistent). Not thread-safe: one per thread. */
public final class TestBatches {

    private final BatchEncoder encoder = new BatchEncoder();

    /** {@code records} records of {@code valueBytes} bytes with offsets {@code prevOffset + 1 ..}, unrouted. */
    public BatchFrame batch(String stream, long id, String origin, String destination, String topic, int partition,
                            long prevOffset, int records, int valueBytes, ByteBufAllocator alloc) {
        List<ReplicatedRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueBytes];
            for (int b = 0; b < valueBytes; b++) {
                value[b] = (byte) ('A' + (b * 7 + i) % 26);
            }
            list.add(new ReplicatedRecord(prevOffset + 1 + i, 1_700_000_000_000L + i,
                    ("key-" + i).getBytes(StandardCharsets.UTF_8), value));
        }
        EncodedBatch encoded = encoder.encode(new RecordBatch(topic, partition, prevOffset, list), CompressionCodec.NONE);
        return BatchFrame.copyOf(RoutingHeader.unrouted(stream, id, origin, destination), encoded,
                System.currentTimeMillis(), alloc);
    }
}
