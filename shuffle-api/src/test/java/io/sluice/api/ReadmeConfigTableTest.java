package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The README's configuration table documents every option the library reads. */
class ReadmeConfigTableTest {

    @Test
    void readme_mentionsEveryOptionKey() throws IOException {
        String configured = System.getProperty("readme.path");
        Path readme = configured != null ? Paths.get(configured)
                : Paths.get(System.getProperty("user.dir")).resolve("../README.md");
        assertTrue(Files.isRegularFile(readme), "README not found at " + readme.toAbsolutePath().normalize());
        String text = Files.readString(readme, StandardCharsets.UTF_8);

        List<String> missing = new ArrayList<>();
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            if (!text.contains(option.key())) {
                missing.add(option.key());
            }
        }

        assertEquals(List.of(), missing, "options missing from " + readme);
    }
}
