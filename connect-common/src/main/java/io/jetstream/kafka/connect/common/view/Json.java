package io.jetstream.kafka.connect.common.view;

import java.util.Collection;
import java.util.Map;

/**
 * JSON text of plain Java values, for the task views: maps (object members in the map's order),
 * collections (arrays), strings, numbers, booleans and null. A number that is not finite (NaN, a
 * figure not measured yet; infinity) is written as {@code null}. {@link Raw} is JSON written already
 * (a task's view inside the REST extension's answer).
 *
 * <p>No dependency on a JSON library: the views are written in the task's plugin class loader and
 * read by the REST extension and the launcher, which need nothing of this class but its output.
 */
public final class Json {

    /** JSON text written already, inserted as it is. */
    public record Raw(String json) {
    }

    private Json() {
    }

    /** {@code value} as JSON text; an unsupported type fails with {@link IllegalArgumentException}. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Raw raw) {
            out.append(raw.json());
        } else if (value instanceof CharSequence || value instanceof Enum<?> || value instanceof Character) {
            string(out, value.toString());
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (!Double.isFinite(d)) {
                out.append("null");
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                out.append((long) d);
            } else {
                out.append(d);
            }
        } else if (value instanceof Number) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> member : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(out, String.valueOf(member.getKey()));
                out.append(':');
                write(out, member.getValue());
            }
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("No JSON for a " + value.getClass().getName() + ": " + value);
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
