package io.sluice.api;

import java.util.Locale;

/**
 * A configuration value such as {@code 64m} or {@code 250ms}, split into its leading digits and the unit written
 * after them, both lower case and without surrounding blanks; {@link ByteSizes} and {@link Durations} read it.
 * Immutable; any thread.
 *
 * @param digits the leading digits, at least one
 * @param unit   what follows the digits, possibly empty
 */
record NumberWithUnit(String digits, String unit) {

    /**
     * @param text the value as written
     * @return its digits and unit, or null when it does not start with a digit
     */
    static NumberWithUnit split(String text) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        int digitsEnd = 0;
        while (digitsEnd < lower.length() && Character.isDigit(lower.charAt(digitsEnd))) {
            digitsEnd++;
        }
        return digitsEnd == 0 ? null
                : new NumberWithUnit(lower.substring(0, digitsEnd), lower.substring(digitsEnd).trim());
    }
}
