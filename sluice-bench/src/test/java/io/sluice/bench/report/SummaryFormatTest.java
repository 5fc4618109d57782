package io.sluice.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryFormatTest {

    private static final LatencySummary LATENCY = new LatencySummary(1_000_000, 55_300, 812_000, 4_100_000, 12_000_000);
    private static final MemoryPeak MEMORY = new MemoryPeak(41L << 20, 128L << 20, 1312, 4096, 3L << 20, 300L << 20);

    private static RunSummary summary(String command, String failure) {
        return new RunSummary(command, "4 producers x 4 consumers, 2 environments, transport auto", 4, 4, "mixed",
                4_294_967_296L, 484_212, 3_210_000_000L, command.equals("serve") ? LatencySummary.NONE : LATENCY, MEMORY,
                0, failure);
    }

    @Test
    void table_showsEveryFigureAndEndsWithThePassVerdict() {
        String table = SummaryTable.format(summary("run", null));

        assertEquals("sluice-bench run: 4 producers x 4 consumers, 2 environments, transport auto\n"
                + "  records                 484,212 on 16 channels (4 x 4), sizes mixed\n"
                + "  data volume             4.29 GB (4096.0 MiB)\n"
                + "  wall time               3.21 s\n"
                + "  throughput              1.34 GB/s, 150,845 records/s\n"
                + "  latency p50/p99/p99.9   55.3 us / 812.0 us / 4.1 ms (max 12.0 ms)\n"
                + "  network memory peak     41.0 MiB of 128.0 MiB (1,312 of 4,096 buffers in use)\n"
                + "  JVM direct memory peak  3.0 MiB\n"
                + "  process peak RSS        300.0 MiB\n"
                + "PASS: 484,212 records on 16 channels arrived complete, in order and intact; every buffer returned\n", table);
    }

    @Test
    void serveTable_leavesLatencyToTheConsumer() {
        String table = SummaryTable.format(summary("serve", null));

        assertTrue(table.contains("  latency                 measured by the consumer\n"), table);
        assertTrue(table.endsWith("PASS: 484,212 records on 16 channels sent, every partition read to its end or released by its"
                + " consumer (whose summary has the verification); every buffer returned\n"), table);
    }

    @Test
    void failedRun_endsWithFailAndTheReason() {
        String table = SummaryTable.format(summary("run", "RecordVerificationException: channel producer 0 -> consumer 1, ..."));

        assertTrue(table.endsWith("\nFAIL: RecordVerificationException: channel producer 0 -> consumer 1, ...\n"), table);
    }

    @Test
    void runThatFailedBeforeStarting_printsOnlyItsShapeAndTheReason() {
        RunSummary failed = new RunSummary("run", "4 producers x 4 consumers, 2 environments, transport auto", 4, 4, "mixed",
                0, 0, 0, LatencySummary.NONE, MemoryPeak.NONE, 0, "ShuffleException: no factory");

        assertEquals("sluice-bench run: 4 producers x 4 consumers, 2 environments, transport auto\n"
                + "FAIL: ShuffleException: no factory\n", SummaryTable.format(failed));
    }

    @Test
    void json_isOneObjectWithEveryFigure() {
        String json = SummaryJson.format(summary("run", null));

        assertEquals("{\"command\":\"run\",\"verdict\":\"PASS\",\"failure\":null,"
                + "\"shape\":\"4 producers x 4 consumers, 2 environments, transport auto\","
                + "\"producers\":4,\"consumers\":4,\"channels\":16,\"recordSizes\":\"mixed\","
                + "\"bytes\":4294967296,\"records\":484212,\"wallSeconds\":3.21,\"gigabytesPerSecond\":1.338,"
                + "\"recordsPerSecond\":150845,"
                + "\"latencyMicros\":{\"count\":1000000,\"p50\":55.3,\"p99\":812,\"p999\":4100,\"max\":12000},"
                + "\"memory\":{\"networkPeakBytes\":42991616,\"networkTotalBytes\":134217728,\"buffersInUseAtPeak\":1312,"
                + "\"totalBuffers\":4096,\"directPeakBytes\":3145728,\"processPeakRssBytes\":314572800},"
                + "\"buffersNotReturned\":0}\n", json);
    }

    private static RunSummary withFlow() {
        RunSummary plain = summary("run", null);
        FlowSummary flow = new FlowSummary(List.of(
                new FlowSample(100_000_000L, 250, 0.5, 0.25, 12, 10, 1000),
                new FlowSample(200_000_000L, 750, 1.0, 0.75, 30, 30, 2000)));
        return new RunSummary(plain.command(), plain.shape(), plain.producers(), plain.consumers(), plain.recordSizes(),
                plain.bytes(), plain.records(), plain.wallNanos(), plain.latency(), plain.memory(),
                plain.buffersNotReturned(), plain.failure(), plain.soak(), flow);
    }

    @Test
    void table_showsBackpressureAndPoolUsage_meanAndPeak() {
        String table = SummaryTable.format(withFlow());

        assertTrue(table.contains("  backpressure            500 ms/s mean per writer, peak 750 ms/s (blocked waiting for "
                + "buffers)\n"
                + "  output pool usage       75% mean, peak 100%\n"
                + "  input pool usage        50% mean, peak 75%\n"
                + "  consumer wait           20 ms/s mean per gate (waiting for data)\n"), table);
    }

    @Test
    void json_holdsTheFlowMeansPeaksAndSeries() {
        String json = SummaryJson.format(withFlow());

        assertTrue(json.contains("\"flow\":{\"intervalMillis\":100,\"backpressuredMsPerSecondMean\":500,"
                + "\"backpressuredMsPerSecondPeak\":750,\"outputPoolUsageMean\":0.75,\"outputPoolUsagePeak\":1,"
                + "\"inputPoolUsageMean\":0.5,\"inputPoolUsagePeak\":0.75,\"waitingForDataMsPerSecondMean\":20,"
                + "\"series\":{\"elapsedMillis\":[100,200],\"backpressuredMsPerSecond\":[250,750],"
                + "\"outputPoolUsage\":[0.5,1],\"inputPoolUsage\":[0.25,0.75],\"queuedInputBuffers\":[12,30],"
                + "\"waitingForDataMsPerSecond\":[10,30]}}"), json);
    }

    @Test
    void json_escapesTheFailureText() {
        String json = SummaryJson.format(summary("consume", "TransportException: \"peer\" closed\n\tat 10.0.0.5\u0001"));

        assertTrue(json.contains("\"verdict\":\"FAIL\",\"failure\":\"TransportException: \\\"peer\\\" closed\\n\\tat 10.0.0.5\\u0001\""),
                json);
    }
}
