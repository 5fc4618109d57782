package io.sluice.bench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskLimitsTest {

    @Test
    void median_ofThreeRuns_isTheMiddleRate_whateverTheirOrder() {
        double[] rates = {2.7e9, 1.4e9, 1.9e9};

        assertEquals(1.9e9, DiskLimits.median(rates));
        assertArrayEquals(new double[] {2.7e9, 1.4e9, 1.9e9}, rates, "the runs are left in their order");
    }

    @Test
    void median_ofAnEvenNumberOfRuns_isTheMeanOfTheMiddleTwo() {
        assertEquals(1.5e9, DiskLimits.median(new double[] {2.0e9, 1.0e9, 1.4e9, 1.6e9}));
    }

    @Test
    void command_thatOutlivesItsTimeout_isKilled_andFailsNamingTheTimeout() throws Exception {
        // The child prints its pid, then never ends while it keeps its output open (the case that used to block the
        // bench in a read of the pipe before the timeout was ever looked at).
        List<String> command = List.of("sh", "-c", "echo pid=$$; exec sleep 600");

        IOException failure = assertThrows(IOException.class,
                () -> DiskLimits.run(command, Duration.ofSeconds(1)));

        String message = failure.getMessage();
        assertTrue(message.contains("timed out after 1000 ms and was killed"), message);
        int pidAt = message.lastIndexOf("pid=");
        if (pidAt >= 0) { // a child killed before its first line (a very slow machine) has nothing to check
            long pid = Long.parseLong(message.substring(pidAt + 4).trim());
            ProcessHandle.of(pid).ifPresent(child -> {
                child.onExit().orTimeout(30, TimeUnit.SECONDS).join();
                assertFalse(child.isAlive(), "the child " + pid + " is still running");
            });
        }
    }

    @Test
    void command_thatFails_reportsItsExitStatusAndWhatItPrinted() {
        IOException failure = assertThrows(IOException.class,
                () -> DiskLimits.run(List.of("sh", "-c", "echo no space left >&2; exit 3"), Duration.ofMinutes(1)));

        assertTrue(failure.getMessage().contains("failed with exit status 3: no space left"), failure.getMessage());
    }

    @Test
    void command_thatPrintsMoreThanAPipeHolds_completes_withAllOfItsOutput() throws Exception {
        // 1 MiB of output: through an unread pipe (64 KiB) the child would block until the timeout.
        String output = DiskLimits.run(List.of("sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' x; echo; echo end"),
                Duration.ofMinutes(1));

        assertEquals(1048576 + "\nend".length(), output.length());
        assertTrue(output.endsWith("x\nend"), output.substring(output.length() - 10));
    }
}
