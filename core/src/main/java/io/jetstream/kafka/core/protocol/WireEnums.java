package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.lang.reflect.Array;
import java.util.function.ToIntFunction;

/** Lookup of the small enumerated wire fields; an unknown code is MALFORMED (enums are closed per version). */
final class WireEnums {

    private WireEnums() {
    }

    static <E extends Enum<E>> E[] indexByCode(Class<E> type, ToIntFunction<E> code) {
        E[] constants = type.getEnumConstants();
        int max = 0;
        for (E e : constants) {
            max = Math.max(max, code.applyAsInt(e));
        }
        @SuppressWarnings("unchecked")
        E[] byCode = (E[]) Array.newInstance(type, max + 1);
        for (E e : constants) {
            byCode[code.applyAsInt(e)] = e;
        }
        return byCode;
    }

    static <E> E lookup(E[] byCode, int code, String field) {
        E value = code >= 0 && code < byCode.length ? byCode[code] : null;
        if (value == null) {
            throw new ProtocolException(ProtocolException.Kind.MALFORMED, field + " code " + code + " is not defined");
        }
        return value;
    }
}
