package io.sluice.api;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Reads and prints durations the way Sluice's configuration writes them: a whole number with an
 * optional unit, case-insensitive: {@code ns}, {@code us} (microseconds), {@code ms},
 * {@code s} (or {@code sec}), {@code min}, {@code h}, {@code d}; a bare number is milliseconds
 * ({@code 250}, {@code 250ms}, {@code 10s}, {@code 2min}, {@code 500us}). Every duration option
 * of {@link ShuffleOptions} reads this format, and tools built on Sluice (the benchmark's
 * command line) read theirs with {@link #parse} too, so one text means the same everywhere.
 * Stateless; any thread.
 */
public final class Durations {

    /** The forms {@link #parse} accepts, for error messages. */
    public static final String FORMS = "a whole number with a unit ns, us, ms, s, min, h or d (a bare number is"
            + " milliseconds), e.g. 500us, 250ms, 30s, 2min";

    private Durations() {
    }

    /**
     * @param text the duration as written
     * @return the duration, not negative
     * @throws NumberFormatException (an {@link IllegalArgumentException}) when the text is not a
     *     whole number with a known unit, or the duration does not fit a {@link Duration}; the
     *     message quotes the text, says what is wrong and lists {@link #FORMS}
     */
    public static Duration parse(String text) {
        NumberWithUnit parts = NumberWithUnit.split(text);
        if (parts == null) {
            throw notADuration(text, "no leading number");
        }
        ChronoUnit unit = unitOf(text, parts.unit());
        try {
            return Duration.of(Long.parseLong(parts.digits()), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw notADuration(text, "too long");
        }
    }

    private static NumberFormatException notADuration(String text, String why) {
        return new NumberFormatException("'" + text + "' is not a duration (" + why + "); use " + FORMS);
    }

    /**
     * Prints a duration so that {@link #parse} reads it back.
     *
     * @param duration a duration, not negative
     * @return the duration with the largest of ns, us, ms, s, min, h that is exact, else in ns;
     *     {@link #parse(String)} reads it back to the same value. Every duration {@link #parse}
     *     returns prints, the longest ones too (no step goes through a count of nanoseconds or
     *     milliseconds that could overflow a long).
     * @throws ArithmeticException for a duration no configured text can give: one whose exact
     *     count in the largest unit that divides it overflows a long
     */
    public static String format(Duration duration) {
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

    private static ChronoUnit unitOf(String text, String unit) {
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
                throw notADuration(text, "unknown unit '" + unit + "'");
        }
    }
}
