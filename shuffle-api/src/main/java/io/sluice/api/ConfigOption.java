package io.sluice.api;

import java.util.Objects;
import java.util.Optional;

/**
 * One configuration option: its key, its default, what it means, how its text is read, and which
 * values are allowed. The library's options are the constants of {@link ShuffleOptions}.
 * Immutable; any thread.
 *
 * @param <T> the type of the option's value
 */
public final class ConfigOption<T> {

    private final String key;
    private final T defaultValue;
    private final String description;
    private final ConfigValueType<T> type;
    private final ConfigValueRule<T> rule;

    ConfigOption(String key, T defaultValue, String description, ConfigValueType<T> type, ConfigValueRule<T> rule) {
        this.key = Objects.requireNonNull(key, "key");
        this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
        this.description = Objects.requireNonNull(description, "description");
        this.type = Objects.requireNonNull(type, "type");
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    /** @return the key in a {@link ShuffleConfig}, e.g. {@code shuffle.memory.total} */
    public String key() {
        return key;
    }

    /** @return the value used when the key is absent */
    public T defaultValue() {
        return defaultValue;
    }

    /** @return what the option controls, for documentation */
    public String description() {
        return description;
    }

    /**
     * @throws IllegalArgumentException "KEY: cannot parse 'TEXT' as TYPE"
     */
    T parse(String text) {
        return type.parse(key, text);
    }

    /** @return the text {@link #parse} reads back to {@code value} */
    String format(T value) {
        return type.format(Objects.requireNonNull(value, key));
    }

    /**
     * @param text the value as configured, quoted in the problem; null to print {@code value} instead
     * @return empty when {@code value} is allowed, else a line naming the key, the value, and the allowed range
     */
    Optional<String> problemWith(T value, String text) {
        Optional<String> requirement = rule.check(value);
        if (requirement.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(key + ": invalid value '" + (text != null ? text : format(value)) + "'; "
                + requirement.get());
    }

    /** @return the key */
    @Override
    public String toString() {
        return key;
    }
}
