package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the configuration parsers: the typed reads of every option (sizes, durations, ints,
 * strings) and {@link ShuffleConfigValidator}. The input is read as text, one {@code key=value} per
 * line, so the corpus in {@code ShuffleConfigFuzzTestInputs} is readable.
 *
 * <p>Invariant: a typed read returns a value or throws the documented IllegalArgumentException
 * naming the key and the text; a value read prints back ({@link ConfigOption#format}) to text that
 * reads back to the same value; the validator never throws, names a key in every problem, and
 * {@code validate} throws exactly when there are problems. Nothing else may escape.
 *
 * <p>{@code mvn verify} replays the corpus; docs/reliability.md ("Fuzzing") says how to fuzz.
 */
class ShuffleConfigFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void anyConfigText_readsOrFailsWithTheKey_validatorListsProblemsNeverThrows(byte[] input) {
        Map<String, String> settings = settings(new String(input, StandardCharsets.UTF_8));
        ShuffleConfig config = ShuffleConfig.fromMap(settings);

        for (ConfigOption<?> option : ShuffleOptions.all()) {
            readAndPrintBack(config, option);
        }
        List<String> problems = ShuffleConfigValidator.problems(config);
        for (String problem : problems) {
            assertTrue(startsWithAKey(problem, settings), "a problem names its key: " + problem);
        }
        if (problems.isEmpty()) {
            ShuffleConfigValidator.validate(config);
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ShuffleConfigValidator.validate(config));
            assertTrue(e.getMessage().endsWith(String.join("\n", problems)), e.getMessage());
        }
    }

    /** Reads one option; a value that reads must print back to text that reads to the same value. */
    private static <T> void readAndPrintBack(ShuffleConfig config, ConfigOption<T> option) {
        T value;
        try {
            value = config.get(option);
        } catch (IllegalArgumentException e) {
            String text = config.toMap().get(option.key());
            assertTrue(e.getMessage().startsWith(option.key() + ": cannot parse '" + text + "' as "), e.getMessage());
            return;
        } catch (RuntimeException e) {
            fail(option.key() + " = '" + config.toMap().get(option.key()) + "': undocumented " + e, e);
            return;
        }
        String printed = option.format(value);
        assertEquals(value, option.parse(printed), option.key() + ": '" + printed + "' does not read back");
    }

    private static boolean startsWithAKey(String problem, Map<String, String> settings) {
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            if (problem.startsWith(option.key() + ": ")) {
                return true;
            }
        }
        for (String key : settings.keySet()) {
            if (problem.startsWith(key + ": ")) {
                return true;
            }
        }
        return false;
    }

    /** One setting per line, {@code key=value}; a line without '=' sets the value of the next option in turn. */
    private static Map<String, String> settings(String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        List<ConfigOption<?>> options = ShuffleOptions.all();
        int next = 0;
        for (String line : text.split("\n", -1)) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                settings.put(line.substring(0, equals), line.substring(equals + 1));
            } else {
                settings.put(options.get(next++ % options.size()).key(), line);
            }
        }
        return settings;
    }
}
