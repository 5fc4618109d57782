package io.sluice.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Reads durations the way Sluice's configuration writes them: a whole number with a unit
 * {@code ms}, {@code s}, {@code min} or {@code h}; a bare number is milliseconds
 * ({@code 250}, {@code 250ms}, {@code 10s}, {@code 2min}). Stateless; any thread.
 */
final class DurationText {

    /** The forms {@link #parse} accepts, for error messages. */
    static final String FORMS = "a whole number with a unit ms, s, min or h, e.g. 250ms, 30s, 2min";

    private DurationText() {
    }

    /**
     * @param text the duration as written
     * @return the duration, not negative
     * @throws IllegalArgumentException quoting the text and listing {@link #FORMS}
     */
    static Duration parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int digits = 0;
        while (digits < s.length() && Character.isDigit(s.charAt(digits))) {
            digits++;
        }
        String unit = s.substring(digits).trim();
        if (digits == 0 || digits > 15) { // 15 digits of hours still fit a Duration
            throw new IllegalArgumentException("'" + text + "' is not a duration; use " + FORMS);
        }
        long amount = Long.parseLong(s.substring(0, digits));
        switch (unit) {
            case "", "ms" -> {
                return Duration.ofMillis(amount);
            }
            case "s" -> {
                return Duration.ofSeconds(amount);
            }
            case "min" -> {
                return Duration.ofMinutes(amount);
            }
            case "h" -> {
                return Duration.ofHours(amount);
            }
            default -> throw new IllegalArgumentException("'" + text + "' has an unknown unit '" + unit + "'; use " + FORMS);
        }
    }
}
