package io.sluice.api;

/**
 * Reads and prints byte sizes the way Sluice's configuration writes them: a whole number with an
 * optional binary unit, case-insensitive: {@code 4096}, {@code 512b}, {@code 32k}, {@code 32kb},
 * {@code 64m}, {@code 64mb}, {@code 1g}, {@code 1gb}, {@code 1t}, {@code 1tb} (k = 1024 bytes).
 * Every size option of {@link ShuffleOptions} reads this format, and tools built on Sluice (the
 * benchmark's command line) read theirs with {@link #parse} too. Stateless; any thread.
 */
public final class ByteSizes {

    /** The forms {@link #parse} accepts, for error messages. */
    public static final String FORMS = "a whole number of bytes with an optional unit k, m, g or t (binary),"
            + " e.g. 4096, 32k, 64m, 1g";

    /** Units from the largest down, so that {@link #format(long)} picks the largest exact one. */
    private static final String[] UNITS = {"t", "g", "m", "k"};
    private static final int[] UNIT_SHIFTS = {40, 30, 20, 10};

    private ByteSizes() {
    }

    /**
     * @param text the size as written
     * @return the size in bytes, at least 0
     * @throws NumberFormatException (an {@link IllegalArgumentException}) when the text is not a
     *     whole number with a known unit, or the size overflows a long; the message quotes the
     *     text, says what is wrong and lists {@link #FORMS}
     */
    public static long parse(String text) {
        NumberWithUnit parts = NumberWithUnit.split(text);
        if (parts == null) {
            throw notASize(text, "no leading number");
        }
        int shift = shiftOf(text, parts.unit());
        long number;
        try {
            number = Long.parseLong(parts.digits());
        } catch (NumberFormatException e) {
            throw notASize(text, "more than 2^63-1 bytes");
        }
        if (number > (Long.MAX_VALUE >> shift)) {
            throw notASize(text, "more than 2^63-1 bytes");
        }
        return number << shift;
    }

    /**
     * Prints a size so that {@link #parse} reads it back.
     *
     * @param bytes a size, at least 0
     * @return the size with the largest unit that divides it exactly, e.g. {@code 64m}
     */
    public static String format(long bytes) {
        for (int i = 0; i < UNITS.length; i++) {
            long unitBytes = 1L << UNIT_SHIFTS[i];
            if (bytes != 0 && bytes % unitBytes == 0) {
                return (bytes >> UNIT_SHIFTS[i]) + UNITS[i];
            }
        }
        return Long.toString(bytes);
    }

    private static NumberFormatException notASize(String text, String why) {
        return new NumberFormatException("'" + text + "' is not a byte size (" + why + "); use " + FORMS);
    }

    private static int shiftOf(String text, String unit) {
        switch (unit) {
            case "":
            case "b":
                return 0;
            case "k":
            case "kb":
                return 10;
            case "m":
            case "mb":
                return 20;
            case "g":
            case "gb":
                return 30;
            case "t":
            case "tb":
                return 40;
            default:
                throw notASize(text, "unknown unit '" + unit + "'");
        }
    }
}
