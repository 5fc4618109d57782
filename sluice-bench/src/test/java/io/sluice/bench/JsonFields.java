package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads single fields of the one-line JSON summary; enough for tests, no JSON library needed. */
final class JsonFields {

    private JsonFields() {
    }

    /** @return the string member {@code name} */
    static String string(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        return m.group(1);
    }

    /** @return the whole-number array member {@code name} (the first one of that name) */
    static long[] numbers(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\\[([-\\d,]*)]").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        if (m.group(1).isEmpty()) {
            return new long[0];
        }
        String[] parts = m.group(1).split(",");
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            values[i] = Long.parseLong(parts[i]);
        }
        return values;
    }

    /** @return the whole-number member {@code name} (the first one of that name) */
    static long number(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(-?\\d+)[,}]").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        return Long.parseLong(m.group(1));
    }
}
