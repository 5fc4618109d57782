package io.sluice.flinkpeer;

import java.util.Locale;

/**
 * One result line: {@code name key=value key=value ...}, the format bench/compare-with-flink.sh parses (the same
 * names and keys as the external peer harness, so both can be set side by side).
 */
final class FigureLine {

    private final StringBuilder text;

    private FigureLine(String name) {
        text = new StringBuilder(name);
    }

    static FigureLine named(String name) {
        return new FigureLine(name);
    }

    FigureLine with(String key, double value, int decimals) {
        text.append(' ').append(key).append('=').append(String.format(Locale.ROOT, "%." + decimals + "f", value));
        return this;
    }

    FigureLine with(String key, long value) {
        text.append(' ').append(key).append('=').append(value);
        return this;
    }

    /** Prints the line on stdout. */
    void print() {
        System.out.println(text);
        System.out.flush();
    }
}
