package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's command exactly: no arguments, in a process of its own (without the test JVM's
 * leak-detection overhead). Skipped when no shuffle implementation is on the class path; the run takes well
 * under a minute, and the 120 s test timeout leaves room for a slow machine.
 */
@Tag("runtime")
class DefaultRunRuntimeTest {

    @BeforeEach
    void needsTheImplementation() {
        ShuffleRuntime.assumeAvailable();
    }

    @Test
    void noArguments_movesTheDefaultVolumeAndPrintsThePassingSummary() throws Exception {
        try (CliProcess bench = CliProcess.start()) {
            int status = bench.waitFor(110);

            String table = bench.stdout();
            assertEquals(Main.EXIT_PASS, status, table + "\n" + bench.stderr());
            assertTrue(table.startsWith("sluice-bench run: 4 producers x 4 consumers, 2 environments, transport auto\n"), table);
            assertTrue(table.matches("(?s).*\n  data volume +4\\.(29|30) GB .*"), "4 GiB and at most one record per producer more: " + table);
            assertTrue(bench.lastLine().startsWith("PASS: "), table);
        }
    }
}
