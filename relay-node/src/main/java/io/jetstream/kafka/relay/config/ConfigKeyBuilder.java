package io.jetstream.kafka.relay.config;

import java.util.Objects;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * Fluent declaration of one {@link ConfigDef} key, so that no key is defined through a positional
 * ten-argument {@code define} call (where a group name ends up as a display name by copy-paste).
 *
 * <pre>{@code
 * new ConfigGroup(def, "Listener")
 *     .add(key("listener.port", Type.INT).defaultValue(7070).validator(PortValidator.INSTANCE)
 *         .importance(Importance.HIGH).displayName("Data port").doc("..."));
 * }</pre>
 *
 * Documentation, display name and importance are mandatory: {@link #defineIn} refuses a key that
 * lacks them, so an undocumented key cannot reach the generated reference.
 */
final class ConfigKeyBuilder {

    private final String name;
    private final Type type;
    private Object defaultValue = ConfigDef.NO_DEFAULT_VALUE;
    private Validator validator;
    private Importance importance;
    private String documentation;
    private String displayName;
    private Width width = Width.MEDIUM;

    private ConfigKeyBuilder(String name, Type type) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
    }

    static ConfigKeyBuilder key(String name, Type type) {
        return new ConfigKeyBuilder(name, type);
    }

    ConfigKeyBuilder defaultValue(Object value) {
        this.defaultValue = value;
        return this;
    }

    ConfigKeyBuilder validator(Validator value) {
        this.validator = value;
        return this;
    }

    ConfigKeyBuilder importance(Importance value) {
        this.importance = value;
        return this;
    }

    ConfigKeyBuilder doc(String value) {
        this.documentation = value;
        return this;
    }

    ConfigKeyBuilder displayName(String value) {
        this.displayName = value;
        return this;
    }

    ConfigKeyBuilder width(Width value) {
        this.width = value;
        return this;
    }

    void defineIn(ConfigDef def, String group, int orderInGroup) {
        requireText(documentation, "doc");
        requireText(displayName, "displayName");
        Objects.requireNonNull(importance, () -> "importance of " + name);
        def.define(name, type, defaultValue, validator, importance, documentation, group, orderInGroup,
                width, displayName);
    }

    private void requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("Config key " + name + " is declared without " + what);
        }
    }

    /** Adds keys to one group of a {@link ConfigDef}, numbering them in declaration order. */
    static final class ConfigGroup {
        private final ConfigDef def;
        private final String group;
        private int order;

        ConfigGroup(ConfigDef def, String group) {
            this.def = def;
            this.group = group;
        }

        ConfigGroup add(ConfigKeyBuilder key) {
            key.defineIn(def, group, ++order);
            return this;
        }
    }
}
