package io.jetstream.kafka.connect.common.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void writesObjectsInTheMapsOrderArraysAndScalars() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("b", 1);
        map.put("a", List.of(true, 2L, 0.5, "x"));
        map.put("n", null);
        map.put("raw", new Json.Raw("{\"k\":[]}"));

        assertThat(Json.write(map)).isEqualTo("{\"b\":1,\"a\":[true,2,0.5,\"x\"],\"n\":null,\"raw\":{\"k\":[]}}");
    }

    @Test
    void figuresNotMeasuredYetAreNullAndWholeDoublesHaveNoFraction() {
        assertThat(Json.write(Arrays.asList(Double.NaN, Double.POSITIVE_INFINITY, 3.0, -0.25, 1e20)))
                .isEqualTo("[null,null,3,-0.25,1.0E20]");
    }

    @Test
    void stringsAreEscaped() {
        assertThat(Json.write("a\"b\\c\nd\te\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    }

    @Test
    void anUnsupportedTypeFailsNamingIt() {
        assertThatThrownBy(() -> Json.write(new Object()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Object");
    }
}
