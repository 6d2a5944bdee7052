package io.jetstream.kafka.relay.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.ConfigProvider;

/** The name of a class on the relay's class path that implements Kafka's {@link ConfigProvider}. */
public final class ConfigProviderClassValidator implements ConfigDef.Validator {

    public static final ConfigProviderClassValidator INSTANCE = new ConfigProviderClassValidator();

    private ConfigProviderClassValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        String className = value == null ? "" : value.toString().strip();
        if (className.isEmpty()) {
            throw new ConfigException(name, value, "names no class");
        }
        Class<?> type;
        try {
            type = Class.forName(className, false, ConfigProviderClassValidator.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(name, value, "class not found on the relay's class path");
        }
        if (!ConfigProvider.class.isAssignableFrom(type)) {
            throw new ConfigException(name, value, "is not a " + ConfigProvider.class.getName());
        }
    }

    @Override
    public String toString() {
        return "class implementing org.apache.kafka.common.config.provider.ConfigProvider";
    }
}
