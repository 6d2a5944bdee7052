package io.jetstream.kafka.relay.config;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * An optional path to a readable regular file. Empty means "not set"; whether the key is required
 * depends on other keys and is checked by {@link RelayConfigValidator}.
 */
public final class ReadableFileValidator implements ConfigDef.Validator {

    public static final ReadableFileValidator INSTANCE = new ReadableFileValidator();

    private ReadableFileValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null || value.toString().isEmpty()) {
            return;
        }
        Path path;
        try {
            path = Path.of(value.toString());
        } catch (InvalidPathException e) {
            throw new ConfigException(name, value, "is not a valid path: " + e.getReason());
        }
        if (!Files.isRegularFile(path)) {
            throw new ConfigException(name, value, "file does not exist or is not a regular file");
        }
        if (!Files.isReadable(path)) {
            throw new ConfigException(name, value, "file is not readable by this process");
        }
    }

    @Override
    public String toString() {
        return "path of a readable file, or empty";
    }
}
