package io.sluice.api;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A range check for one option's value, as {@link ShuffleConfigValidator} applies it.
 * Implementations are stateless; any thread.
 *
 * @param <T> the option's value type
 */
@FunctionalInterface
interface ConfigValueRule<T> {

    /**
     * @param value a parsed value
     * @return empty when the value is allowed, else what is required, e.g. "must be >= 1"
     */
    Optional<String> check(T value);

    /** @return a rule that allows every value */
    static <T> ConfigValueRule<T> any() {
        return value -> Optional.empty();
    }

    /** @return a rule that allows {@code min <= value <= max} */
    static <N extends Number> ConfigValueRule<N> between(long min, long max) {
        return value -> value.longValue() >= min && value.longValue() <= max
                ? Optional.empty() : Optional.of("must be between " + min + " and " + max);
    }

    /** @return a rule that allows byte sizes {@code min <= value <= max}, printed as sizes ({@link ByteSizes}) */
    static ConfigValueRule<Long> bytesBetween(long min, long max) {
        return value -> value >= min && value <= max
                ? Optional.empty() : Optional.of("must be between " + ByteSizes.format(min) + " and "
                        + ByteSizes.format(max));
    }

    /** @return a rule that allows {@code min <= value <= max} */
    static ConfigValueRule<Duration> durationBetween(Duration min, Duration max) {
        return value -> value.compareTo(min) >= 0 && value.compareTo(max) <= 0
                ? Optional.empty() : Optional.of("must be between " + Durations.format(min) + " and "
                        + Durations.format(max));
    }

    /** @return a rule that allows zero, and {@code min <= value <= max} */
    static ConfigValueRule<Duration> zeroOrDurationBetween(Duration min, Duration max) {
        ConfigValueRule<Duration> range = durationBetween(min, max);
        return value -> value.isZero() || range.check(value).isEmpty()
                ? Optional.empty() : Optional.of("must be 0 or between " + Durations.format(min) + " and "
                        + Durations.format(max));
    }

    /** @return a rule that allows exactly the given strings */
    static ConfigValueRule<String> oneOf(List<String> allowed) {
        return value -> allowed.contains(value)
                ? Optional.empty() : Optional.of("must be one of " + String.join(", ", allowed));
    }

    /** @return a rule that allows strings that are not blank */
    static ConfigValueRule<String> notBlank() {
        return value -> value.isBlank() ? Optional.of("must not be empty") : Optional.empty();
    }
}
