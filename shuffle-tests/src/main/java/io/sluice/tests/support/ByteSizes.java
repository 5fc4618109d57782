package io.sluice.tests.support;

import java.util.Locale;

/**
 * Reads byte sizes the way Sluice's configuration writes them: a whole number with an optional
 * binary unit, case-insensitive: {@code 4096}, {@code 512b}, {@code 32k}, {@code 32kb},
 * {@code 64m}, {@code 1g}, {@code 1t}. Stateless; any thread.
 */
public final class ByteSizes {

    /** The forms {@link #parse} accepts, for error messages. */
    public static final String FORMS = "a whole number of bytes with an optional unit k, m, g or t (binary), e.g. 4096, 32k, 64m, 1g";

    private ByteSizes() {
    }

    /**
     * @param text the size as written
     * @return the size in bytes, at least 0
     * @throws IllegalArgumentException when the text is not a size; the message quotes it and lists {@link #FORMS}
     */
    public static long parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        int shift = 0;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                case 't' -> shift = 40;
                default -> shift = -1;
            }
            if (shift >= 0) {
                s = s.substring(0, s.length() - 1);
            } else {
                shift = 0;
            }
        }
        long number;
        try {
            number = Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a byte size; use " + FORMS, e);
        }
        if (number < 0 || number > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is not a byte size from 0 to 2^63-1; use " + FORMS);
        }
        return number << shift;
    }
}
