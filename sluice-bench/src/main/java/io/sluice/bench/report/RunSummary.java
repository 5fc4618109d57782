package io.sluice.bench.report;

import io.sluice.bench.options.Command;

/**
 * Everything a run reports. Immutable value.
 *
 * @param command run, serve or consume
 * @param shape producers, consumers, environments and transport, in words
 * @param producers producer tasks (consume: partitions read)
 * @param consumers consumer tasks (serve: subpartitions per partition)
 * @param recordSizes the record size distribution, or "-" where unknown (consume)
 * @param bytes bytes of records moved (serve: emitted; else: received and verified)
 * @param records records moved
 * @param wallNanos from the start of the first task to the end of the last
 * @param latency per-record latency; {@link LatencySummary#NONE} for serve
 * @param memory memory peaks
 * @param buffersNotReturned network buffers still in use after everything closed (a leak when above 0)
 * @param failure why the run failed, or null when it passed
 * @param soak the soak samples ({@link SoakReport#NONE} when none were taken)
 * @param flow the backpressure and pool usage samples ({@link FlowSummary#NONE} when none were taken)
 * @param series the time series {@code --report} charts ({@link ReportSeries#NONE} when none were taken)
 */
public record RunSummary(String command, String shape, int producers, int consumers, String recordSizes,
                         long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
                         int buffersNotReturned, String failure, SoakReport soak, FlowSummary flow, ReportSeries series) {

    /** A summary without a time series for the report. */
    public RunSummary(String command, String shape, int producers, int consumers, String recordSizes,
                      long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
                      int buffersNotReturned, String failure, SoakReport soak, FlowSummary flow) {
        this(command, shape, producers, consumers, recordSizes, bytes, records, wallNanos, latency, memory,
                buffersNotReturned, failure, soak, flow, ReportSeries.NONE);
    }

    /** A summary without flow samples. */
    RunSummary(String command, String shape, int producers, int consumers, String recordSizes,
               long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
               int buffersNotReturned, String failure, SoakReport soak) {
        this(command, shape, producers, consumers, recordSizes, bytes, records, wallNanos, latency, memory,
                buffersNotReturned, failure, soak, FlowSummary.NONE);
    }

    /** A summary without soak samples. */
    RunSummary(String command, String shape, int producers, int consumers, String recordSizes,
               long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
               int buffersNotReturned, String failure) {
        this(command, shape, producers, consumers, recordSizes, bytes, records, wallNanos, latency, memory,
                buffersNotReturned, failure, SoakReport.NONE);
    }

    /** @return true when every record arrived intact and nothing leaked */
    public boolean passed() {
        return failure == null;
    }

    /** @return producer-consumer pairs */
    int channels() {
        return producers * consumers;
    }

    /** @return bytes per second over the wall time */
    double bytesPerSecond() {
        return Units.perSecond(bytes, wallNanos);
    }

    /** @return records per second over the wall time */
    double recordsPerSecond() {
        return Units.perSecond(records, wallNanos);
    }

    /** @return the last line: PASS or FAIL and why */
    String verdict() {
        if (failure != null) {
            return "FAIL: " + failure;
        }
        if (command.equals(Command.SERVE.word())) {
            return "PASS: " + Units.count(records) + " records on " + channels()
                    + " channels sent, every partition read to its end or released by its consumer (whose summary"
                    + " has the verification); every buffer returned";
        }
        return "PASS: " + Units.count(records) + " records on " + channels()
                + " channels arrived complete, in order and intact; every buffer returned";
    }
}
