package io.sluice.api;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * Reads and prints durations as configured: a whole number with an optional unit,
 * case-insensitive: {@code ns}, {@code us}, {@code ms}, {@code s}, {@code min}, {@code h},
 * {@code d}; a bare number is milliseconds ({@code 250}, {@code 250ms}, {@code 10s},
 * {@code 2min}). Stateless; any thread.
 */
final class Durations {

    private Durations() {
    }

    /**
     * @param text the configured text
     * @return the duration, not negative
     * @throws NumberFormatException when the text is not a whole number with a known unit
     * @throws ArithmeticException when the duration overflows
     */
    static Duration parse(String text) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        int digitsEnd = 0;
        while (digitsEnd < lower.length() && Character.isDigit(lower.charAt(digitsEnd))) {
            digitsEnd++;
        }
        if (digitsEnd == 0) {
            throw new NumberFormatException("no leading number");
        }
        long number = Long.parseLong(lower.substring(0, digitsEnd));
        return Duration.of(number, unitOf(lower.substring(digitsEnd).trim()));
    }

    /**
     * @param duration a duration, not negative
     * @return the duration with the largest of ns, us, ms, s, min, h that is exact, else in ns;
     *     {@link #parse(String)} reads it back to the same value. Every duration {@link #parse}
     *     returns prints, the longest ones too (no step goes through a count of nanoseconds or
     *     milliseconds that could overflow a long).
     * @throws ArithmeticException for a duration no configured text can give: one whose exact
     *     count in the largest unit that divides it overflows a long
     */
    static String format(Duration duration) {
        long seconds = duration.getSeconds();
        int nanos = duration.getNano();
        if (nanos % 1_000 != 0) {
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos) + "ns";
        }
        if (nanos % 1_000_000 != 0) {
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanos / 1_000) + "us";
        }
        if (nanos != 0 || seconds == 0) {
            return Math.addExact(Math.multiplyExact(seconds, 1_000L), nanos / 1_000_000) + "ms";
        }
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "min";
        }
        return seconds + "s";
    }

    private static ChronoUnit unitOf(String unit) {
        switch (unit) {
            case "ns":
                return ChronoUnit.NANOS;
            case "us":
                return ChronoUnit.MICROS;
            case "":
            case "ms":
                return ChronoUnit.MILLIS;
            case "s":
            case "sec":
                return ChronoUnit.SECONDS;
            case "min":
                return ChronoUnit.MINUTES;
            case "h":
                return ChronoUnit.HOURS;
            case "d":
                return ChronoUnit.DAYS;
            default:
                throw new NumberFormatException("unknown unit '" + unit + "'");
        }
    }
}
