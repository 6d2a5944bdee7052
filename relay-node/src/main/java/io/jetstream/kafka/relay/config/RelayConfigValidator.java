package io.jetstream.kafka.relay.config;

import static io.jetstream.kafka.relay.config.RelayConfig.*;

import io.jetstream.kafka.core.protocol.PeerRole;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.config.types.Password;

/**
 * Checks a flattened relay configuration and reports every problem at once, each naming the key as
 * the user wrote it.
 *
 * <ol>
 *   <li>member lists implied by nesting are filled in ({@link MemberLists});</li>
 *   <li>fixed keys are checked by {@link RelayConfigDef#relay()}: types, ranges, named validators;</li>
 *   <li>each listed stream, destination and route is checked by its own small definition, so
 *       {@code streams.demo.token} is required exactly when {@code demo} is listed;</li>
 *   <li>keys that no definition declares are reported, with the closest known key as a hint;</li>
 *   <li>cross-field rules run last, only over keys that passed their own checks, so one typo does
 *       not produce a cascade of follow-up messages.</li>
 * </ol>
 */
final class RelayConfigValidator {

    /** The outcome: the completed properties (member lists filled in) and the problems found. */
    record Result(Map<String, String> props, List<ConfigProblem> problems) {
        boolean valid() {
            return problems.isEmpty();
        }
    }

    private final Map<String, String> props;
    private final List<ConfigProblem> problems = new ArrayList<>();
    private final Set<String> knownKeys = new HashSet<>();
    private final Set<String> failedKeys = new HashSet<>();
    /** Keys that bind a role to certificate identities: they need mutual TLS. */
    private final List<String> identityKeys = new ArrayList<>();

    private RelayConfigValidator(Map<String, String> flat) {
        this.props = new LinkedHashMap<>(MemberLists.complete(flat));
    }

    static Result validate(Map<String, String> flat) {
        RelayConfigValidator validator = new RelayConfigValidator(flat);
        validator.run();
        return new Result(validator.props, List.copyOf(validator.problems));
    }

    private void run() {
        resolveVariables();
        Map<String, ConfigValue> fixed = check(RelayConfigDef.relay());
        for (String id : listValue(fixed, STREAMS)) {
            Map<String, ConfigValue> streamValues = check(RelayConfigDef.stream(id));
            checkRoleTokensDiffer(id, streamValues);
            for (PeerRole role : PeerRole.values()) {
                String key = RelayConfigDef.streamRoleIdentitiesKey(id, role.name().toLowerCase(Locale.ROOT));
                if (!failedKeys.contains(key) && streamValues.get(key).value() instanceof List<?> list && !list.isEmpty()) {
                    identityKeys.add(key);
                }
            }
        }
        for (String destination : listValue(fixed, DESTINATIONS)) {
            Map<String, ConfigValue> destinationValues = check(RelayConfigDef.destination(destination));
            List<String> routes = listValue(destinationValues, RelayConfigDef.routesKey(destination));
            if (routes.isEmpty() && !failedKeys.contains(RelayConfigDef.routesKey(destination))) {
                missing(RelayConfigDef.routesKey(destination), "destination '" + destination
                        + "' needs at least one route under " + RelayConfigDef.routesKey(destination));
            }
            for (String route : routes) {
                check(RelayConfigDef.route(destination, route));
            }
        }
        reportUnknownKeys();
        new CrossFieldRules(fixed).check();
        // Resolved: the relay never runs its providers again (a resolved secret is taken as it is).
        props.keySet().removeIf(key -> key.equals(CONFIG_PROVIDERS) || key.startsWith(CONFIG_PROVIDERS + "."));
    }

    /**
     * Checks the config-provider keys, then replaces the providers' variables in every value
     * ({@link ConfigVariables}), so that the checks below see the values the relay will use. A
     * variable that does not resolve is one problem, on its key, not followed by that key's checks.
     */
    private void resolveVariables() {
        List<String> providers = listValue(check(RelayConfigDef.configProviders()), CONFIG_PROVIDERS);
        for (String provider : providers) {
            check(RelayConfigDef.configProvider(provider));
            String params = RelayConfigDef.configProviderParamPrefix(provider);
            props.keySet().stream().filter(key -> key.startsWith(params) && key.length() > params.length())
                    .forEach(knownKeys::add);
        }
        if (!problems.isEmpty()) {
            return;
        }
        ConfigVariables.Result resolved = ConfigVariables.resolve(props, providers);
        resolved.problems().forEach(problem -> {
            failedKeys.add(problem.key());
            problems.add(problem);
        });
        props.putAll(resolved.props());
    }

    /** A role's own token must differ from the shared token and from the other roles': it grants that role alone. */
    private void checkRoleTokensDiffer(String id, Map<String, ConfigValue> values) {
        Map<String, String> firstKeyBySecret = new HashMap<>();
        List<String> keys = new ArrayList<>();
        keys.add(RelayConfigDef.streamTokenKey(id));
        for (PeerRole role : PeerRole.values()) {
            keys.add(RelayConfigDef.streamRoleTokenKey(id, role.name().toLowerCase(Locale.ROOT)));
        }
        for (String key : keys) {
            ConfigValue value = values.get(key);
            if (failedKeys.contains(key) || value == null || !(value.value() instanceof Password secret)) {
                continue;
            }
            String first = firstKeyBySecret.putIfAbsent(secret.value(), key);
            if (first != null) {
                invalid(key, secret, "must differ from " + first + ": a role's own token grants that role alone");
            }
        }
    }

    /** Validates the keys of one definition, records their errors and remembers them as known. */
    private Map<String, ConfigValue> check(ConfigDef def) {
        knownKeys.addAll(def.names());
        Map<String, ConfigValue> values = def.validateAll(props);
        // ConfigDef returns its keys in hash order; report in declaration order for stable output.
        Comparator<ConfigDef.ConfigKey> declarationOrder = Comparator
                .comparingInt((ConfigDef.ConfigKey k) -> def.groups().indexOf(k.group))
                .thenComparingInt(k -> k.orderInGroup);
        for (String name : def.configKeys().values().stream().sorted(declarationOrder).map(k -> k.name).toList()) {
            List<String> errors = values.get(name).errorMessages();
            // ConfigDef runs the validator even when the value did not parse, on null: keep the
            // first message, the rest only repeats it less clearly.
            // A key already reported (a variable that did not resolve) is not reported twice.
            if (!errors.isEmpty() && failedKeys.add(name)) {
                problems.add(new ConfigProblem(name, errors.get(0)));
            }
        }
        return values;
    }

    private List<String> listValue(Map<String, ConfigValue> values, String key) {
        ConfigValue value = values.get(key);
        if (value == null || !value.errorMessages().isEmpty() || !(value.value() instanceof List<?> list)) {
            return List.of();
        }
        return list.stream().map(String::valueOf).toList();
    }

    private void reportUnknownKeys() {
        for (String key : props.keySet()) {
            if (!knownKeys.contains(key)) {
                problems.add(new ConfigProblem(key, "Unknown configuration key " + key + hintFor(key)));
            }
        }
    }

    private String hintFor(String key) {
        Optional<String> unlisted = unlistedMember(key, STREAMS, "stream")
                .or(() -> unlistedMember(key, DESTINATIONS, "destination"));
        if (unlisted.isPresent()) {
            return unlisted.get();
        }
        return KeySuggester.closest(key, knownKeys).map(k -> " (did you mean " + k + "?)").orElse("");
    }

    private Optional<String> unlistedMember(String key, String listKey, String what) {
        String prefix = listKey + ".";
        if (!key.startsWith(prefix) || knownKeys.stream().anyMatch(k -> sameMember(k, key, prefix))) {
            return Optional.empty();
        }
        int end = key.indexOf('.', prefix.length());
        String member = end < 0 ? key.substring(prefix.length()) : key.substring(prefix.length(), end);
        return Optional.of(": " + what + " '" + member + "' is not listed in " + listKey);
    }

    private static boolean sameMember(String known, String key, String prefix) {
        int end = key.indexOf('.', prefix.length());
        String memberPrefix = end < 0 ? key + "." : key.substring(0, end + 1);
        return known.startsWith(memberPrefix);
    }

    private void invalid(String key, Object value, String rule) {
        failedKeys.add(key);
        problems.add(new ConfigProblem(key, new ConfigException(key, value, rule).getMessage()));
    }

    private void missing(String key, String rule) {
        failedKeys.add(key);
        problems.add(new ConfigProblem(key, "Missing configuration " + key + ": " + rule));
    }

    /** Rules that relate several keys; each names the key to change. */
    private final class CrossFieldRules {
        private final Map<String, ConfigValue> fixed;

        CrossFieldRules(Map<String, ConfigValue> fixed) {
            this.fixed = fixed;
        }

        void check() {
            checkTls();
            checkLessThan(HEARTBEAT_INTERVAL_MS, IDLE_TIMEOUT_MS, "so that a live peer is never taken for idle");
            checkAtMost(RECONNECT_BACKOFF_MS, RECONNECT_BACKOFF_MAX_MS, "the first wait cannot exceed the longest");
            checkAtMost(FRAME_MAX_BYTES, BUFFER_MAX_BYTES_PER_CONNECTION, "so that any valid frame can be buffered");
            checkAtMost(BUFFER_MAX_BYTES_PER_CONNECTION, BUFFER_MAX_BYTES, "one connection cannot have more than the relay");
            checkPortsDiffer();
        }

        private void checkTls() {
            checkIdentitiesNeedMutualTls();
            if (!ok(TLS_ENABLED) || !Boolean.TRUE.equals(value(TLS_ENABLED))) {
                return;
            }
            for (String key : List.of(TLS_CERT_FILE, TLS_KEY_FILE)) {
                if (ok(key) && isEmpty(value(key))) {
                    missing(key, "required when " + TLS_ENABLED + " is true (the default);"
                            + " for plaintext set " + TLS_ENABLED + ": false explicitly");
                }
            }
            if (ok(TLS_CLIENT_AUTH) && ok(TLS_CA_FILE) && isEmpty(value(TLS_CA_FILE))) {
                String clientAuth = String.valueOf(value(TLS_CLIENT_AUTH));
                if (EnumValidator.parse(TlsClientAuth.class, clientAuth) != TlsClientAuth.NONE) {
                    missing(TLS_CA_FILE, "required to verify client certificates when " + TLS_CLIENT_AUTH
                            + " is " + clientAuth + "; set " + TLS_CLIENT_AUTH + ": none to accept peers without one");
                }
            }
        }

        /** Certificate identities mean nothing unless every peer must prove a certificate. */
        private void checkIdentitiesNeedMutualTls() {
            if (identityKeys.isEmpty() || !ok(TLS_ENABLED) || !ok(TLS_CLIENT_AUTH)) {
                return;
            }
            boolean tls = Boolean.TRUE.equals(value(TLS_ENABLED));
            boolean required = EnumValidator.parse(TlsClientAuth.class, String.valueOf(value(TLS_CLIENT_AUTH)))
                    == TlsClientAuth.REQUIRED;
            if (!tls || !required) {
                for (String key : identityKeys) {
                    invalid(key, props.get(key), "needs " + TLS_ENABLED + ": true and " + TLS_CLIENT_AUTH
                            + ": required, so that every peer proves a certificate (now "
                            + (tls ? TLS_CLIENT_AUTH + " is " + value(TLS_CLIENT_AUTH) : TLS_ENABLED + " is false") + ")");
                }
            }
        }

        private void checkLessThan(String smaller, String larger, String why) {
            if (ok(smaller) && ok(larger) && number(smaller) >= number(larger)) {
                invalid(smaller, value(smaller), "must be less than " + larger + " (" + value(larger) + ") " + why);
            }
        }

        private void checkAtMost(String smaller, String larger, String why) {
            if (ok(smaller) && ok(larger) && number(smaller) > number(larger)) {
                invalid(smaller, value(smaller), "must be at most " + larger + " (" + value(larger) + "): " + why);
            }
        }

        private void checkPortsDiffer() {
            if (ok(LISTENER_PORT) && ok(ADMIN_PORT) && number(ADMIN_PORT) != 0
                    && number(ADMIN_PORT) == number(LISTENER_PORT)) {
                invalid(ADMIN_PORT, value(ADMIN_PORT), "must differ from " + LISTENER_PORT);
            }
        }

        private boolean ok(String key) {
            return !failedKeys.contains(key) && fixed.containsKey(key);
        }

        private Object value(String key) {
            return fixed.get(key).value();
        }

        private long number(String key) {
            return ((Number) value(key)).longValue();
        }

        private boolean isEmpty(Object value) {
            return value == null || value.toString().isEmpty();
        }
    }

    /** Unused-key typo hints: the known key with the smallest edit distance, if it is close enough. */
    static final class KeySuggester {
        private KeySuggester() {
        }

        static Optional<String> closest(String key, Collection<String> candidates) {
            int budget = Math.max(2, key.length() / 4);
            return candidates.stream()
                    .filter(c -> distance(key, c) <= budget)
                    .min(Comparator.comparingInt((String c) -> distance(key, c)).thenComparing(c -> c));
        }

        static int distance(String a, String b) {
            int[] previous = new int[b.length() + 1];
            int[] current = new int[b.length() + 1];
            for (int j = 0; j <= b.length(); j++) {
                previous[j] = j;
            }
            for (int i = 1; i <= a.length(); i++) {
                current[0] = i;
                for (int j = 1; j <= b.length(); j++) {
                    int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                    current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
                }
                int[] swap = previous;
                previous = current;
                current = swap;
            }
            return previous[b.length()];
        }
    }
}
