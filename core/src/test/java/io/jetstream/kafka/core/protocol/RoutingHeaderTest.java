package io.jetstream.kafka.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingHeaderTest {

    private final RoutingHeader unrouted = RoutingHeader.unrouted("stream", 9, "sender", "site-b");

    @Test
    void aBatchWalksItsPathFromIngressToEgress() {
        assertThat(unrouted.isRouted()).isFalse();
        assertThat(unrouted.isAtEgress()).isFalse();
        RoutingHeader atIngress = unrouted.withPath(List.of("a1:7400", "c1:7400", "b1:7400"));
        assertThat(atIngress.hopIndex()).isZero();
        assertThat(atIngress.nextHop()).isEqualTo("c1:7400");
        RoutingHeader atMiddle = atIngress.advance();
        assertThat(atMiddle.nextHop()).isEqualTo("b1:7400");
        RoutingHeader atEgress = atMiddle.advance();
        assertThat(atEgress.isAtEgress()).isTrue();
        assertThatThrownBy(atEgress::advance).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(unrouted::nextHop).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSingleRelayPathIsIngressAndEgressAtOnce() {
        assertThat(unrouted.withPath(List.of("b1:7400")).isAtEgress()).isTrue();
    }

    @Test
    void invalidRoutingIsRejected() {
        assertThatThrownBy(() -> new RoutingHeader("s", 1, "o", "d", List.of("a:1"), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hopIndex 1");
        assertThatThrownBy(() -> new RoutingHeader("s", 1, "o", "d", List.of(), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RoutingHeader("s", 1, "o", "d", Collections.nCopies(33, "a:1"), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maximum of 32");
        assertThatThrownBy(() -> new RoutingHeader("", 1, "o", "d", List.of(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("streamId");
        assertThatThrownBy(() -> new RoutingHeader("s", 1, "o", "d", List.of("x".repeat(70_000)), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65535 UTF-8 bytes");
    }
}
