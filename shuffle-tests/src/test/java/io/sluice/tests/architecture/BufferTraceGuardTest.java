package io.sluice.tests.architecture;

import io.sluice.buffers.BufferTrace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The buffer trace is a diagnostic that costs nothing while it is off: its switch is a {@code static final}
 * constant, which the JIT folds, and every recording call in the main code of every module sits behind that switch,
 * so that with tracing off no argument is computed and nothing is called.
 */
class BufferTraceGuardTest {

    /** The calls that record a hop; each must be guarded by {@code BufferTrace.ENABLED}. */
    private static final List<String> RECORDING_CALLS = List.of("BufferTrace.record(", "BufferTrace.committed(");

    @Test
    void theSwitch_isAStaticFinalConstant_offInThisJvm() throws NoSuchFieldException {
        Field enabled = BufferTrace.class.getField("ENABLED");

        assertEquals(boolean.class, enabled.getType());
        assertTrue(Modifier.isStatic(enabled.getModifiers()) && Modifier.isFinal(enabled.getModifiers()),
                "BufferTrace.ENABLED must be static final for the JIT to fold it: " + enabled);
        assertFalse(BufferTrace.ENABLED, "this test JVM runs without -Dsluice.trace");
    }

    @Test
    void everyRecordingCallInMainCode_isGuardedByTheSwitch() throws IOException {
        List<Path> sources = mainSources();
        List<String> unguarded = new ArrayList<>();
        int calls = 0;
        for (Path source : sources) {
            if (source.getFileName().toString().equals("BufferTrace.java")) {
                continue;
            }
            List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (RECORDING_CALLS.stream().noneMatch(lines.get(i)::contains)) {
                    continue;
                }
                calls++;
                if (!lines.get(i).contains("BufferTrace.ENABLED") && !guardedByTheLineBefore(lines, i)) {
                    unguarded.add(source + ":" + (i + 1) + ": " + lines.get(i).trim());
                }
            }
        }

        assertTrue(calls > 10, "found only " + calls + " recording calls in " + sources.size()
                + " main source files; is the repository root right?");
        assertEquals(List.of(), unguarded, "recording calls not inside 'if (BufferTrace.ENABLED ...)'");
    }

    /** Whether the statement before line {@code i} (its call may span lines) opens an {@code if} on the switch. */
    private static boolean guardedByTheLineBefore(List<String> lines, int i) {
        for (int j = i - 1; j >= 0; j--) {
            String line = lines.get(j).trim();
            if (!line.isEmpty() && !line.startsWith("//")) {
                return line.startsWith("if (BufferTrace.ENABLED") && line.endsWith("{");
            }
        }
        return false;
    }

    /** The Java files under every module's {@code src/main/java}, found from this module's directory or the root. */
    private static List<Path> mainSources() throws IOException {
        Path root = Files.exists(Path.of("..", "pom.xml")) && Files.isDirectory(Path.of("..", "shuffle-buffers"))
                ? Path.of("..") : Path.of(".");
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).toList()) {
                Path main = module.resolve("src").resolve("main").resolve("java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        }
        return sources;
    }
}
