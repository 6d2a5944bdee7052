package io.jetstream.kafka.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.CompressionCodec;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AckFrameTest {

    private final BatchHeader header = new BatchHeader(RoutingHeader.unrouted("s", 42, "sender", "d"), "orders", 3, 9,
            10, 19, 10, 0, CompressionCodec.ZSTD, 100, 0);

    @Test
    void okAndDuplicateLetTheSenderCommitTheBatch() {
        AckFrame ok = AckFrame.ok(header);
        assertThat(ok.isOk()).isTrue();
        assertThat(ok.reason()).isEqualTo(AckReason.NONE);
        assertThat(ok.lastOffset()).isEqualTo(19);
        assertThat(ok.partition()).isEqualTo(3);
        assertThat(AckFrame.duplicate(header).isOk()).isTrue();
    }

    @Test
    void statusAndReasonMustAgree() {
        assertThatThrownBy(() -> new AckFrame("s", "o", 1, AckStatus.OK, AckReason.OVERLOADED, "t", 0, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AckFrame("s", "o", 1, AckStatus.NACK, AckReason.NONE, "t", 0, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AckFrame("s", "o", 1, AckStatus.NACK, AckReason.DUPLICATE, "t", 0, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AckFrame("s", "o", 1, AckStatus.RECEIVED, AckReason.DUPLICATE, "t", 0, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AckFrame("s", "o", 1, AckStatus.RECEIVED, AckReason.TIMEOUT, "t", 0, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aReceiptIsNeitherAnOkNorANack() {
        AckFrame receipt = AckFrame.received(header);
        assertThat(receipt.isReceipt()).isTrue();
        assertThat(receipt.isOk()).isFalse();
        assertThat(receipt.reason()).isEqualTo(AckReason.NONE);
        assertThat(receipt.batchId()).isEqualTo(42);
        assertThat(receipt.lastOffset()).isEqualTo(19);
        assertThat(AckFrame.ok(header).isReceipt()).isFalse();
    }

    @Test
    void retriabilityOfNackReasons() {
        assertThat(AckReason.NO_SUBSCRIBER.retriable()).isTrue();
        assertThat(AckReason.NEXT_HOP_UNREACHABLE.retriable()).isTrue();
        assertThat(AckReason.MALFORMED_BATCH.retriable()).isFalse();
        assertThat(AckReason.NOT_AUTHORIZED.retriable()).isFalse();
    }

    @Test
    void metadataAcksUseTheMetadataIdAndNoPartition() {
        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("s", 77, "sender", "d"), "orders",
                6, Map.of("cleanup.policy", "compact"));
        AckFrame ack = AckFrame.ok(metadata);
        assertThat(ack.batchId()).isEqualTo(77);
        assertThat(ack.partition()).isEqualTo(-1);
        assertThat(AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, "no").isOk()).isFalse();
    }
}
