package io.sluice.api;

import java.time.Duration;
import java.util.function.Function;

/**
 * How the text of one kind of option is read and printed: strings, ints, booleans, byte sizes
 * ({@link ByteSizes}) and durations ({@link Durations}). Immutable; any thread.
 *
 * @param <T> the option's value type
 */
final class ConfigValueType<T> {

    static final ConfigValueType<String> STRING =
            new ConfigValueType<>("string", "", text -> text, value -> value);
    static final ConfigValueType<Integer> INT =
            new ConfigValueType<>("int", "", text -> Integer.valueOf(text.trim()), String::valueOf);
    static final ConfigValueType<Boolean> BOOLEAN = new ConfigValueType<>("boolean", "; use true or false",
            ConfigValueType::parseBoolean, String::valueOf);
    static final ConfigValueType<Long> BYTES = new ConfigValueType<>("byte size",
            "; use a whole number of bytes with an optional binary unit: 4096, 32k, 32kb, 64m, 1g",
            ByteSizes::parse, ByteSizes::format);
    static final ConfigValueType<Duration> DURATION = new ConfigValueType<>("duration",
            "; use a whole number with a unit ns, us, ms, s, min, h, d (a bare number is ms): 250ms, 10s, 2min",
            Durations::parse, Durations::format);

    private final String name;
    private final String hint;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;

    private ConfigValueType(String name, String hint, Function<String, T> parser, Function<T, String> formatter) {
        this.name = name;
        this.hint = hint;
        this.parser = parser;
        this.formatter = formatter;
    }

    /**
     * @param key the option's key, for the message
     * @param text the configured text
     * @return the value
     * @throws IllegalArgumentException "KEY: cannot parse 'TEXT' as TYPE" with a hint on the format
     */
    T parse(String key, String text) {
        try {
            return parser.apply(text);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(
                    key + ": cannot parse '" + text + "' as " + name + hint, e);
        }
    }

    /** {@code true} or {@code false}, case-insensitive; anything else is refused (never read as false). */
    private static Boolean parseBoolean(String text) {
        String trimmed = text.trim();
        if (trimmed.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (trimmed.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new NumberFormatException("not a boolean: " + text);
    }

    /** @return the text that {@link #parse} reads back to {@code value} */
    String format(T value) {
        return formatter.apply(value);
    }
}
