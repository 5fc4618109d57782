package io.sluice.api;

import java.util.Locale;

/**
 * Reads and prints byte sizes as configured: a whole number with an optional binary unit,
 * case-insensitive: {@code 4096}, {@code 512b}, {@code 32k}, {@code 32kb}, {@code 64m},
 * {@code 64mb}, {@code 1g}, {@code 1gb}, {@code 1t}, {@code 1tb}. Stateless; any thread.
 */
final class ByteSizes {

    /** Units from the largest down, so that {@link #format(long)} picks the largest exact one. */
    private static final String[] UNITS = {"t", "g", "m", "k"};
    private static final int[] UNIT_SHIFTS = {40, 30, 20, 10};

    private ByteSizes() {
    }

    /**
     * @param text the configured text
     * @return the size in bytes, at least 0
     * @throws NumberFormatException when the text is not a whole number with a known unit, or
     *     the size overflows a long
     */
    static long parse(String text) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        int digitsEnd = 0;
        while (digitsEnd < lower.length() && Character.isDigit(lower.charAt(digitsEnd))) {
            digitsEnd++;
        }
        if (digitsEnd == 0) {
            throw new NumberFormatException("no leading number");
        }
        long number = Long.parseLong(lower.substring(0, digitsEnd));
        String unit = lower.substring(digitsEnd).trim();
        int shift = shiftOf(unit);
        if (number > (Long.MAX_VALUE >> shift)) {
            throw new NumberFormatException("overflows a long");
        }
        return number << shift;
    }

    /**
     * @param bytes a size, at least 0
     * @return the size with the largest unit that divides it exactly, e.g. {@code 64m}
     */
    static String format(long bytes) {
        for (int i = 0; i < UNITS.length; i++) {
            long unitBytes = 1L << UNIT_SHIFTS[i];
            if (bytes != 0 && bytes % unitBytes == 0) {
                return (bytes >> UNIT_SHIFTS[i]) + UNITS[i];
            }
        }
        return Long.toString(bytes);
    }

    private static int shiftOf(String unit) {
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
                throw new NumberFormatException("unknown unit '" + unit + "'");
        }
    }
}
