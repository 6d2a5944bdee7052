package io.jetstream.kafka.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WireFormatTest {

    @Test
    void readsTheIdAfterTheMagicByte() {
        assertThat(WireFormat.schemaId(new byte[] {0, 0, 0, 1, 2, 42})).isEqualTo(258);
        assertThat(WireFormat.schemaId(new byte[] {0, 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}))
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void dataWithoutTheWireFormatHasNoId() {
        assertThat(WireFormat.schemaId(null)).isEqualTo(WireFormat.NONE);
        assertThat(WireFormat.schemaId(new byte[0])).isEqualTo(WireFormat.NONE);
        assertThat(WireFormat.schemaId(new byte[] {0, 0, 0, 1})).as("shorter than the header").isEqualTo(WireFormat.NONE);
        assertThat(WireFormat.schemaId(new byte[] {1, 0, 0, 0, 1})).as("other magic").isEqualTo(WireFormat.NONE);
        assertThat(WireFormat.schemaId(new byte[] {0, (byte) 0x80, 0, 0, 1})).as("negative id").isEqualTo(WireFormat.NONE);
        assertThat(WireFormat.schemaId("{\"json\":1}".getBytes())).isEqualTo(WireFormat.NONE);
    }

    @Test
    void rewritesTheIdInPlaceAndLeavesTheDataAlone() {
        byte[] data = WireFormat.frame(7, new byte[] {9, 8, 7});
        WireFormat.rewriteId(data, 100_000);
        assertThat(WireFormat.schemaId(data)).isEqualTo(100_000);
        assertThat(data).endsWith(9, 8, 7).hasSize(8);
    }

    @Test
    void refusesToRewriteWhatIsNotInTheWireFormat() {
        assertThatThrownBy(() -> WireFormat.rewriteId(new byte[] {1, 2, 3, 4, 5}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WireFormat.rewriteId(WireFormat.frame(1, new byte[0]), -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
