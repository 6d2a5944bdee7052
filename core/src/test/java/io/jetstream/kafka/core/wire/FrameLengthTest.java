package io.jetstream.kafka.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FrameLengthTest {

    @Test
    void lengthsAreCheckedAgainstTheMaximumBeforeAnythingIsAllocated() {
        assertThat(FrameLength.validate(1, 1024)).isEqualTo(1);
        assertThat(FrameLength.validate(1024, 1024)).isEqualTo(1024);
        assertThatThrownBy(() -> FrameLength.validate(1025, 1024)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.kind()).isEqualTo(ProtocolException.Kind.FRAME_TOO_LARGE));
        assertThatThrownBy(() -> FrameLength.validate(-1, 1024)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.getMessage()).contains("4294967295"));
        assertThatThrownBy(() -> FrameLength.validate(0, 1024)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.kind()).isEqualTo(ProtocolException.Kind.MALFORMED));
    }

    @Test
    void theConfiguredMaximumHasAFloor() {
        assertThat(FrameLength.checkMaxFrameBytes(FrameLength.DEFAULT_MAX_FRAME_BYTES)).isEqualTo(16 << 20);
        assertThatThrownBy(() -> FrameLength.checkMaxFrameBytes(100)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void protocolExceptionsCarryTheirKindAndNoStackTrace() {
        ProtocolException e = new ProtocolException(ProtocolException.Kind.BAD_CRC, "payload");
        assertThat(e.kind()).isEqualTo(ProtocolException.Kind.BAD_CRC);
        assertThat(e.getMessage()).isEqualTo("BAD_CRC: payload");
        assertThat(e.getStackTrace()).isEmpty();
    }
}
