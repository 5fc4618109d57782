package io.sluice.bench.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * Writes one JSON object, member by member, in the order added. Enough JSON for a summary:
 * strings, whole and decimal numbers, booleans, arrays of whole numbers, null, and nested objects. Used by one thread.
 */
final class JsonObject {

    /** Figures of a benchmark are not more precise than this. */
    private static final MathContext SIGNIFICANT_DIGITS = new MathContext(6);

    private final StringBuilder json = new StringBuilder("{");

    /** @return this, with a string member (null writes null) */
    JsonObject put(String name, String value) {
        name(name);
        if (value == null) {
            json.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    /** @return this, with a whole-number member */
    JsonObject put(String name, long value) {
        name(name).append(value);
        return this;
    }

    /** @return this, with a boolean member */
    JsonObject put(String name, boolean value) {
        name(name).append(value);
        return this;
    }

    /** @return this, with an array of whole numbers */
    JsonObject put(String name, long[] values) {
        StringBuilder text = name(name).append('[');
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : ",").append(values[i]);
        }
        text.append(']');
        return this;
    }

    /** @return this, with a decimal member: 6 significant digits, plain notation, no trailing zeros */
    JsonObject put(String name, double value) {
        name(name).append(decimal(value));
        return this;
    }

    /** @return this, with an array of decimals, each written as {@link #put(String, double)} writes one */
    JsonObject put(String name, double[] values) {
        StringBuilder text = name(name).append('[');
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : ",").append(decimal(values[i]));
        }
        text.append(']');
        return this;
    }

    private static String decimal(double value) {
        BigDecimal rounded = new BigDecimal(value).round(SIGNIFICANT_DIGITS).stripTrailingZeros();
        return rounded.signum() == 0 ? "0" : rounded.toPlainString();
    }

    /** @return this, with a nested object member */
    JsonObject put(String name, JsonObject value) {
        name(name).append(value);
        return this;
    }

    /** @return the object's text */
    @Override
    public String toString() {
        return json + "}";
    }

    private StringBuilder name(String name) {
        if (json.length() > 1) {
            json.append(',');
        }
        quote(name);
        return json.append(':');
    }

    private void quote(String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
