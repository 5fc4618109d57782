package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.bench.options.ProgressMode;
import io.sluice.bench.options.Workload;
import io.sluice.tests.support.RecordSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {

    private static final long SECOND = 1_000_000_000L;
    private static final Workload FOUR_GB = new Workload(RecordSizes.fixed(100), 4_000_000_000L, null, 1, null);
    private static final Workload THIRTY_SECONDS = new Workload(RecordSizes.fixed(100), 0, Duration.ofSeconds(30), 1, null);

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void byteRun_showsPercentBytesRateAndEta() {
        ProgressPrinter printer = printer(ProgressMode.PLAIN, FOUR_GB, () -> 0);

        assertEquals(" 25%  1.00 / 4.00 GB  1.00 GB/s  ETA 0:03", printer.line(1_000_000_000L, SECOND));
    }

    @Test
    void timedRun_showsPercentOfTheDurationAndTheTimeLeft() {
        ProgressPrinter printer = printer(ProgressMode.PLAIN, THIRTY_SECONDS, () -> 0);

        assertEquals(" 33%  2.00 GB  0.20 GB/s  ETA 0:20", printer.line(2_000_000_000L, 10 * SECOND));
    }

    @Test
    void nothingMovedYet_hasNoEta() {
        ProgressPrinter printer = printer(ProgressMode.PLAIN, FOUR_GB, () -> 0);

        assertEquals("  0%  0.00 / 4.00 GB  0.00 GB/s  ETA -:--", printer.line(0, SECOND));
    }

    @Test
    void plainMode_printsOneLinePerTick() {
        long[] bytes = {0};
        ProgressPrinter printer = printer(ProgressMode.PLAIN, FOUR_GB, () -> bytes[0]);

        printer.tick();
        bytes[0] = 4_000_000_000L;
        printer.tick();
        printer.finish();

        String[] lines = text().split("\n");
        assertEquals(2, lines.length, text());
        assertTrue(lines[1].startsWith("progress 100%  4.00 / 4.00 GB"), lines[1]);
        assertEquals(Duration.ofSeconds(2), printer.interval());
    }

    @Test
    void ttyMode_rewritesOneLineAndClearsItAtTheEnd() {
        ProgressPrinter printer = printer(ProgressMode.TTY, FOUR_GB, () -> 2_000_000_000L);

        printer.tick();
        printer.finish();

        String text = text();
        assertTrue(text.startsWith("\r 50%  2.00 / 4.00 GB"), text);
        assertTrue(text.endsWith("\u001b[K\r\u001b[K"), text);
        assertEquals(-1, text.indexOf('\n'), "no new line on a terminal");
    }

    @Test
    void offMode_hasNoInterval() {
        assertNull(printer(ProgressMode.OFF, FOUR_GB, () -> 0).interval());
    }

    private ProgressPrinter printer(ProgressMode mode, Workload workload, java.util.function.LongSupplier bytes) {
        return new ProgressPrinter(new PrintStream(err, true, StandardCharsets.UTF_8), mode, bytes, workload, 0);
    }

    private String text() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
