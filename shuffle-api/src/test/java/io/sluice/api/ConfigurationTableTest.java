package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's table and {@link ShuffleOptions} stay in step: one row per option, in the order of
 * {@link ShuffleOptions#all()}, each with a default that reads as the option's default, and no row for an option
 * that does not exist.
 */
class ConfigurationTableTest {

    /** The table's header row; the rows after it, up to the first line that is not a row, are the options. */
    private static final String HEADER = "| key | type | default | meaning |";

    @Test
    void configurationTable_hasOneRowPerOption_inOrder_withItsDefault() throws IOException {
        Path doc = configurationDoc();
        Map<String, String> defaultsByKey = tableRows(Files.readAllLines(doc, StandardCharsets.UTF_8), doc);

        List<String> expectedKeys = new ArrayList<>();
        List<String> wrongDefaults = new ArrayList<>();
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            expectedKeys.add(option.key());
            String documented = defaultsByKey.get(option.key());
            if (documented != null && !isTheDefault(option, documented)) {
                wrongDefaults.add(option.key() + ": the table says " + documented + ", ShuffleOptions `"
                        + formattedDefault(option) + "`");
            }
        }

        assertEquals(expectedKeys, new ArrayList<>(defaultsByKey.keySet()),
                "the keys of " + doc + " against ShuffleOptions.all(), in order");
        assertEquals(List.of(), wrongDefaults, "defaults in " + doc);
    }

    private static <T> String formattedDefault(ConfigOption<T> option) {
        return option.format(option.defaultValue());
    }

    /** A default cell is one value in backticks, read as the option reads it (`""` for the empty text). */
    private static boolean isTheDefault(ConfigOption<?> option, String cell) {
        if (cell.length() < 2 || !cell.startsWith("`") || !cell.endsWith("`")) {
            return false;
        }
        String text = cell.substring(1, cell.length() - 1);
        try {
            return option.parse(text.equals("\"\"") ? "" : text).equals(option.defaultValue());
        } catch (IllegalArgumentException notAValue) {
            return false;
        }
    }

    /** @return the default column by key, in the table's order */
    private static Map<String, String> tableRows(List<String> lines, Path doc) {
        int header = lines.indexOf(HEADER);
        assertTrue(header >= 0, doc + " has no line " + HEADER);
        Map<String, String> rows = new LinkedHashMap<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String[] cells = lines.get(i).split("\\|");
            // cells[0] is the empty text before the first '|'; a cell may hold '|' only inside a link, never here.
            String key = cells[1].trim();
            assertTrue(key.startsWith("`") && key.endsWith("`"), "key not in backticks: " + lines.get(i));
            String bareKey = key.substring(1, key.length() - 1);
            assertFalse(rows.containsKey(bareKey), "two rows for " + bareKey);
            rows.put(bareKey, cells[3].trim());
        }
        return rows;
    }

    private static Path configurationDoc() {
        String configured = System.getProperty("configuration.doc.path");
        if (configured != null) {
            return Paths.get(configured);
        }
        // Surefire runs in the module's directory; an IDE may run in the repository's root.
        Path moduleDir = Paths.get(System.getProperty("user.dir"));
        Path fromModule = moduleDir.resolve("../docs/configuration.md").normalize();
        Path doc = Files.isRegularFile(fromModule) ? fromModule : moduleDir.resolve("docs/configuration.md");
        assertTrue(Files.isRegularFile(doc), "docs/configuration.md not found from " + moduleDir.toAbsolutePath());
        return doc;
    }
}
