package io.jetstream.kafka.sink.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.TopicPartition;

/**
 * MirrorMaker 2's checkpoint record ({@code org.apache.kafka.connect.mirror.Checkpoint}, version 0),
 * written byte for byte so that MM2's tooling ({@code RemoteClusterUtils.translateOffsets},
 * {@code MirrorClient.remoteConsumerOffsets}) reads the checkpoints of {@code checkpoints.format=mm2}
 * from {@code <source alias>.checkpoints.internal} without this plugin needing MM2's jar. Kafka's
 * protocol types: a string is an int16 length and its UTF-8 bytes, integers are big-endian.
 * <ul>
 *   <li>key: group (string), downstream topic (string), partition (int32)
 *   <li>value: version (int16, 0), upstream offset (int64), downstream offset (int64), metadata (string)
 * </ul>
 */
final class Mm2CheckpointFormat {

    static final short VERSION = 0;

    private Mm2CheckpointFormat() {
    }

    static byte[] key(String group, TopicPartition downstream) {
        byte[] groupBytes = utf8(group);
        byte[] topicBytes = utf8(downstream.topic());
        ByteBuffer buffer = ByteBuffer.allocate(2 + groupBytes.length + 2 + topicBytes.length + 4);
        putString(buffer, groupBytes);
        putString(buffer, topicBytes);
        buffer.putInt(downstream.partition());
        return buffer.array();
    }

    static byte[] value(long upstreamOffset, long downstreamOffset, String metadata) {
        byte[] metadataBytes = utf8(metadata);
        ByteBuffer buffer = ByteBuffer.allocate(2 + 8 + 8 + 2 + metadataBytes.length);
        buffer.putShort(VERSION);
        buffer.putLong(upstreamOffset);
        buffer.putLong(downstreamOffset);
        putString(buffer, metadataBytes);
        return buffer.array();
    }

    private static byte[] utf8(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("longer than " + Short.MAX_VALUE + " bytes: " + text.substring(0, 64));
        }
        return bytes;
    }

    private static void putString(ByteBuffer buffer, byte[] bytes) {
        buffer.putShort((short) bytes.length);
        buffer.put(bytes);
    }
}
