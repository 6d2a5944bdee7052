package io.jetstream.kafka.relay.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Replaces Kafka config-provider variables in a flattened relay configuration, with the providers
 * it declares ({@code config.providers}, {@code config.providers.<name>.class},
 * {@code config.providers.<name>.param.<param>}), exactly as Kafka clients, brokers and Connect
 * workers do: {@code ${env:VAR}} with {@link org.apache.kafka.common.config.provider.EnvVarConfigProvider},
 * {@code ${file:/path/file.properties:key}}, {@code ${directory:/path:file}} (a mounted Kubernetes
 * Secret). Kafka's own code does the work ({@link AbstractConfig} resolves its originals), so the
 * {@code org.apache.kafka.automatic.config.providers} system property restricts the classes as it
 * does for Kafka.
 *
 * <p>Kafka leaves a variable that its provider cannot resolve (an unset environment variable) as
 * written; a relay would then take {@code ${env:TOKEN}} itself for the token. Here such a variable
 * is a problem naming the key and the variable (never the value).
 */
final class ConfigVariables {

    /** ConfigTransformer's pattern: ${provider:[path:]key}. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*?):(([^}]*?):)?([^}]*?)\\}");

    /** The resolved properties and the problems met. */
    record Result(Map<String, String> props, List<ConfigProblem> problems) {
    }

    private ConfigVariables() {
    }

    /**
     * @param props     flattened properties whose provider keys are valid; values may hold variables
     * @param providers the validated provider names ({@code config.providers}); with none, every
     *                  variable is reported as unresolved
     */
    static Result resolve(Map<String, String> props, List<String> providers) {
        Map<String, String> resolved = props;
        if (!providers.isEmpty()) {
            Map<String, String> input = new LinkedHashMap<>(props);
            // Kafka splits the list on commas without trimming: hand it the validated names.
            input.put(RelayConfig.CONFIG_PROVIDERS, String.join(",", providers));
            try {
                resolved = new AbstractConfig(new ConfigDef(), input, false).originalsStrings();
            } catch (ConfigException e) {
                return new Result(props, List.of(new ConfigProblem(RelayConfig.CONFIG_PROVIDERS, e.getMessage())));
            } catch (KafkaException e) {
                return new Result(props, List.of(new ConfigProblem(RelayConfig.CONFIG_PROVIDERS,
                        "A config provider failed: " + e.getMessage())));
            }
        }
        List<ConfigProblem> problems = new ArrayList<>();
        Map<String, String> out = new LinkedHashMap<>(props);
        for (Map.Entry<String, String> entry : props.entrySet()) {
            String key = entry.getKey();
            String value = resolved.getOrDefault(key, entry.getValue());
            Matcher left = VARIABLE.matcher(value);
            if (VARIABLE.matcher(entry.getValue()).find() && left.find()) {
                String provider = left.group(1);
                String why = providers.contains(provider)
                        ? "config provider '" + provider + "' has no value for it"
                        : "no config provider '" + provider + "' is declared in " + RelayConfig.CONFIG_PROVIDERS;
                problems.add(new ConfigProblem(key, "Variable " + left.group() + " in " + key
                        + " did not resolve: " + why));
            }
            out.put(key, value);
        }
        return new Result(out, List.copyOf(problems));
    }
}
