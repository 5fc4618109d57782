package io.sluice.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable string-to-string configuration with typed reads through {@link ConfigOption}s.
 * It accepts every key and value; {@link ShuffleConfigValidator} reports unknown keys and values
 * out of range. Immutable; any thread.
 */
public final class ShuffleConfig {

    private static final ShuffleConfig EMPTY = new ShuffleConfig(Map.of());

    private final Map<String, String> values;

    private ShuffleConfig(Map<String, String> values) {
        this.values = values;
    }

    /** @return a config without any key: every option has its default */
    public static ShuffleConfig empty() {
        return EMPTY;
    }

    /**
     * @param values keys and values, copied; no null key or value
     * @return a config holding them
     */
    public static ShuffleConfig fromMap(Map<String, String> values) {
        Map<String, String> copy = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : values.entrySet()) {
            copy.put(Objects.requireNonNull(entry.getKey(), "key"),
                    Objects.requireNonNull(entry.getValue(), () -> "value of " + entry.getKey()));
        }
        return new ShuffleConfig(Collections.unmodifiableMap(copy));
    }

    /**
     * @param key any key
     * @param value its text
     * @return a new config with the key set, this one unchanged
     */
    public ShuffleConfig with(String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(values);
        copy.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
        return new ShuffleConfig(Collections.unmodifiableMap(copy));
    }

    /**
     * @param <T> the option's value type
     * @param option the option to set
     * @param value its value, printed so that {@link #get} reads it back
     * @return a new config with the option set, this one unchanged
     */
    public <T> ShuffleConfig with(ConfigOption<T> option, T value) {
        return with(option.key(), option.format(value));
    }

    /**
     * @param <T> the option's value type
     * @param option the option to read
     * @return its value, or its default when the key is absent
     * @throws IllegalArgumentException when the text does not parse; names the key and the value
     */
    public <T> T get(ConfigOption<T> option) {
        String text = values.get(option.key());
        return text == null ? option.defaultValue() : option.parse(text);
    }

    /** @return every key and value, unmodifiable */
    public Map<String, String> toMap() {
        return values;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ShuffleConfig && values.equals(((ShuffleConfig) other).values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "ShuffleConfig" + values;
    }
}
