package io.sluice.bench.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskLimitsTest {

    @Test
    void bufferedWriteOf_measuresARate_andLeavesNoFileBehind(@TempDir Path directory) throws Exception {
        double rate = DiskLimits.bufferedWriteOf(directory, 3L << 20);

        assertTrue(rate > 0, "rate " + rate);
        try (Stream<Path> left = Files.list(directory)) {
            assertEquals(List.of(), left.toList(), "the probe file is deleted");
        }
    }

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
    void meanWith_averagesEveryLimit_andCountsTheMeasurements() {
        DiskLimits before = new DiskLimits(4.0e9, 1.0e9, 20.0e9, 2.0e9, 1L << 30, 1);
        DiskLimits after = new DiskLimits(2.0e9, 3.0e9, 10.0e9, 1.0e9, 1L << 30, 1);

        DiskLimits around = before.meanWith(after);

        assertEquals(new DiskLimits(3.0e9, 2.0e9, 15.0e9, 1.5e9, 1L << 30, 2), around);
    }

    @Test
    void meanWith_weighsEachSideByItsMeasurements() {
        DiskLimits two = new DiskLimits(3.0e9, 3.0e9, 3.0e9, 3.0e9, 1L << 20, 2);
        DiskLimits third = new DiskLimits(6.0e9, 0.0, 9.0e9, 3.0e9, 1L << 20, 1);

        DiskLimits all = two.meanWith(third);

        assertEquals(new DiskLimits(4.0e9, 2.0e9, 5.0e9, 3.0e9, 1L << 20, 3), all);
    }

    @Test
    void meanWith_probesOfDifferentSizes_isRefused() {
        DiskLimits gib = new DiskLimits(1, 1, 1, 1, 1L << 30, 1);
        DiskLimits mib = new DiskLimits(1, 1, 1, 1, 1L << 20, 1);

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> gib.meanWith(mib));
        assertTrue(failure.getMessage().contains("1073741824 and 1048576 bytes"), failure.getMessage());
    }

    @Test
    void command_thatOutlivesItsTimeout_isKilled_andFailsNamingTheTimeout() throws Exception {
        // The child prints its pid, then never ends while it keeps its output open: reading its output to the end
        // would block for as long as it lives, so only a timeout on the wait ends it.
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
