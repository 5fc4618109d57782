package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.bench.report.FlowSummary;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The default command moving real data in this JVM; skipped when no shuffle implementation is on the class path. */
@Tag("runtime")
class LocalRunRuntimeTest {

    private final InProcessBench bench = new InProcessBench();

    @BeforeEach
    void needsTheImplementation() {
        ShuffleRuntime.assumeAvailable();
    }

    @Test
    void defaultShape_smallerVolume_verifiesEveryRecordAndReturnsEveryBuffer() {
        int status = bench.run("--bytes", "64m", "--json", "--progress", "off");

        String json = bench.out();
        assertEquals(Main.EXIT_PASS, status, json + bench.err());
        assertEquals("PASS", JsonFields.string(json, "verdict"));
        assertEquals(16, JsonFields.number(json, "channels"));
        assertTrue(JsonFields.number(json, "bytes") >= 64L << 20, json);
        assertEquals(JsonFields.number(json, "records"), JsonFields.number(json, "count"), "every record's latency is measured");
        assertEquals(0, JsonFields.number(json, "buffersNotReturned"));
        assertTrue(JsonFields.number(json, "buffersInUseAtPeak") > 0, json);
        assertEquals(FlowSummary.INTERVAL_MILLIS, JsonFields.number(json, "intervalMillis"), "flow samples: " + json);
        long[] elapsed = JsonFields.numbers(json, "elapsedMillis");
        assertTrue(elapsed.length >= 1, "at least the sample at the end of the run: " + json);
        assertEquals(elapsed.length, JsonFields.numbers(json, "queuedInputBuffers").length, json);
    }

    @Test
    void oneEnvironment_localTransport_andTimedRuns_passToo() {
        assertEquals(Main.EXIT_PASS, bench.run("--environments", "1", "--bytes", "16m", "--json", "--progress", "off"), bench.out());
        assertEquals(Main.EXIT_PASS, bench.run("--transport", "local", "--producers", "3", "--consumers", "2", "--bytes", "16m",
                "--json", "--progress", "off"), bench.out());
        assertEquals(Main.EXIT_PASS, bench.run("--duration", "1s", "--record-size", "100", "--flush-interval", "0", "--json",
                "--progress", "off"), bench.out());
    }

    @Test
    void blockingRun_warmsUpOnItsOwnPartitions_thenMeasuresAndVerifiesTheRequestedVolume() {
        int status = bench.run("--partition-type", "blocking", "--bytes", "16m", "--warmup-bytes", "4m", "--json",
                "--progress", "plain");

        String json = bench.out();
        String progress = bench.err();
        assertEquals(Main.EXIT_PASS, status, json + progress);
        assertEquals("PASS", JsonFields.string(json, "verdict"));
        // The summary counts the measured round only: 16 MiB, not 16 + 4.
        assertTrue(JsonFields.number(json, "bytes") >= 16L << 20, json);
        assertTrue(JsonFields.number(json, "bytes") < 20L << 20, json);
        assertEquals(0, JsonFields.number(json, "buffersNotReturned"));
        int warmUpRead = progress.indexOf("warm-up 1 read phase: ");
        int warmUpDone = progress.indexOf("warm-up done after round ");
        int measuredWrite = progress.indexOf("\nwrite phase: ");
        assertTrue(warmUpRead >= 0 && warmUpRead < warmUpDone && warmUpDone < measuredWrite, progress);
        // Only the measured round's data is flushed to disk, between its write and its read.
        int writeBack = progress.indexOf("\nwrite-back: the written data reached the disk in ");
        int measuredRead = progress.indexOf("\nread phase: ");
        assertTrue(measuredWrite < writeBack && writeBack < measuredRead, progress);
        assertFalse(progress.contains("warm-up 1 write-back"), progress);
        // dd runs again after the measured read, and the ratios are to the mean of both measurements.
        int ddAgain = progress.indexOf("measuring the temp directory with dd again, after the read phase");
        int ddBefore = progress.indexOf("dd before the run:\n  dd write ");
        int ddAfter = progress.indexOf("dd after the read phase:\n  dd write ");
        int limits = progress.indexOf(", mean of before the run and after the read):\n  dd write ");
        assertTrue(measuredRead < ddAgain && ddAgain < ddBefore && ddBefore < ddAfter && ddAfter < limits, progress);
    }

    @Test
    void blockingRun_warmsUpInAtMostTheGivenRounds_eachReadAndWrittenLikeTheMeasuredOne() {
        int status = bench.run("--partition-type", "blocking", "--bytes", "8m", "--warmup-bytes", "2m",
                "--warmup-rounds", "2", "--json", "--progress", "plain");

        String progress = bench.err();
        assertEquals(Main.EXIT_PASS, status, bench.out() + progress);
        assertTrue(progress.contains("warm-up 1 write phase: ") && progress.contains("warm-up 1 read phase: "),
                progress);
        assertFalse(progress.contains("warm-up 3 "), progress);
        // Round 2 runs only when round 1 did not settle the compiler; either way one line ends the warm-up.
        assertEquals(progress.contains("warm-up 2 read phase: "), progress.contains("warm-up done after round 2 "),
                progress);
        assertEquals(1, progress.split("warm-up done after round ", -1).length - 1, progress);
    }

    @Test
    void blockingRun_withoutWarmUp_goesStraightToTheMeasuredPhases() {
        int status = bench.run("--partition-type", "blocking", "--bytes", "8m", "--warmup-bytes", "0", "--json",
                "--progress", "plain");

        assertEquals(Main.EXIT_PASS, status, bench.out() + bench.err());
        assertFalse(bench.err().contains("warm-up"), bench.err());
        assertTrue(bench.err().contains("write phase: "), bench.err());
    }

    @Test
    void corruptedRecord_failsTheRunWithExit1NamingTheChannel() {
        // Channel 6 = producer 1 -> consumer 2 of 4 x 4.
        int status = bench.run("--bytes", "16m", "--corrupt-record", "6:20", "--progress", "off");

        String table = bench.out();
        assertEquals(Main.EXIT_FAIL, status, table);
        assertTrue(table.contains("\nFAIL: RecordVerificationException: channel producer 1 -> consumer 2, input channel 1"
                + " (record channel 6): record 20 ("), table);
        assertTrue(table.contains("fails its checksum"), table);
    }

    @Test
    void tooLittleMemory_failsWithTheOptionToRaise() {
        int status = bench.run("--memory", "64k", "--bytes", "1m", "--progress", "off");

        String table = bench.out();
        assertEquals(Main.EXIT_FAIL, status, table);
        assertTrue(table.contains("(--memory)"), table);
    }

    @Test
    void plainProgress_printsLinesOnStderr() {
        assertEquals(Main.EXIT_PASS, bench.run("--duration", "3s", "--progress", "plain", "--record-size", "1k"), bench.out());

        assertTrue(bench.err().startsWith("progress "), bench.err());
    }

    @Test
    void soakSampling_printsEverySampleAndWritesTheSeriesToJson() {
        int status = bench.run("--duration", "4s", "--sample-interval", "1s", "--record-size", "1k", "--json", "--progress", "off");

        String json = bench.out();
        String lines = bench.err();
        assertEquals(Main.EXIT_PASS, status, json + lines);
        long samples = JsonFields.number(json, "sampleCount");
        assertTrue(samples >= 2, "a sample every second of a 4-second run: " + json);
        assertEquals(samples, lines.lines().filter(line -> line.startsWith("sample ")).count(), lines);
        assertTrue(lines.contains("sample 1 at 0:0"), lines);
        assertEquals(1, JsonFields.number(json, "intervalSeconds"));
        String series = json.substring(json.indexOf("\"series\""));
        // Two environments over TCP: every sample during the run sees the consumers' connections and direct memory.
        for (long connections : JsonFields.numbers(series, "openConnections")) {
            assertTrue(connections > 0, series);
        }
        for (long direct : JsonFields.numbers(series, "directBytes")) {
            assertTrue(direct > 0, series);
        }
        assertEquals(samples, JsonFields.numbers(series, "segmentsInUse").length);
        assertEquals(samples, JsonFields.numbers(series, "heapAfterGcBytes").length);
        assertTrue(json.contains("\"flatAfterWarmUp\":{\"directBytes\":{\"judged\":"), json);
    }

    @Test
    void abortedTimedRun_stopsItsProducersPromptly() {
        // --duration 1h, --timeout 2s: the timeout aborts the run; the producers must end with the abort
        // instead of writing into their closed writers until the hour is over.
        int status = bench.run("--duration", "1h", "--timeout", "2s", "--record-size", "1k", "--json", "--progress", "off");

        String json = bench.out();
        assertEquals(Main.EXIT_FAIL, status, json);
        String failure = JsonFields.string(json, "failure");
        assertTrue(failure.startsWith("TimeoutException: not finished within 2.00 s (--timeout)"), failure);
        assertFalse(failure.contains("still running"), failure);
        assertEquals(0, JsonFields.number(json, "buffersNotReturned"), json);
    }
}
