package io.sluice.bench.run;

import io.sluice.bench.report.FlowSummary;
import io.sluice.bench.report.MemoryPeak;
import io.sluice.bench.report.ReportSeries;
import io.sluice.bench.report.SoakReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The monitor thread of a run: prints progress, samples memory for the peaks and takes the soak
 * samples until closed.
 * Started and closed by the main thread.
 */
final class RunMonitor implements AutoCloseable {

    private final ScheduledExecutorService scheduler;
    private final ProgressPrinter printer;
    private final MemorySampler sampler;
    private final SoakRecorder soak;
    private final FlowSampler flow;
    private final ReportSeries series;
    private final List<ScheduledFuture<?>> jobs = new ArrayList<>();

    /**
     * Starts the monitor thread.
     *
     * @param printer the progress line, ticked at its interval
     * @param sampler the memory sampler, sampled every {@link MemorySampler#INTERVAL_MILLIS} ms
     * @param soak the soak recorder, sampled every {@link SoakRecorder#interval()}, first one interval after the start
     */
    RunMonitor(ProgressPrinter printer, MemorySampler sampler, SoakRecorder soak) {
        this(printer, sampler, soak, null, null);
    }

    /**
     * Starts the monitor thread, also sampling the flow (backpressure, pool usage).
     *
     * @param flow the flow sampler, sampled every {@link FlowSummary#INTERVAL_MILLIS} ms; or null for none
     * @param series the {@code --report} time series, sampled every {@link ReportSeries#INTERVAL_MILLIS} ms; or null
     */
    RunMonitor(ProgressPrinter printer, MemorySampler sampler, SoakRecorder soak, FlowSampler flow,
               ReportSeries series) {
        this.printer = printer;
        this.sampler = sampler;
        this.soak = soak;
        this.flow = flow;
        this.series = series;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-bench-monitor");
            thread.setDaemon(true);
            return thread;
        });
        jobs.add(scheduler.scheduleAtFixedRate(sampler::sample, 0, MemorySampler.INTERVAL_MILLIS, TimeUnit.MILLISECONDS));
        if (flow != null) {
            jobs.add(scheduler.scheduleAtFixedRate(flow::sample, FlowSummary.INTERVAL_MILLIS,
                    FlowSummary.INTERVAL_MILLIS, TimeUnit.MILLISECONDS));
        }
        if (series != null) {
            jobs.add(scheduler.scheduleAtFixedRate(series::sample, ReportSeries.INTERVAL_MILLIS,
                    ReportSeries.INTERVAL_MILLIS, TimeUnit.MILLISECONDS));
        }
        long soakMillis = soak.interval().toMillis();
        jobs.add(scheduler.scheduleAtFixedRate(soak::sample, soakMillis, soakMillis, TimeUnit.MILLISECONDS));
        if (printer.interval() != null) {
            long millis = printer.interval().toMillis();
            jobs.add(scheduler.scheduleAtFixedRate(printer::tick, millis, millis, TimeUnit.MILLISECONDS));
        }
    }

    /** @return the memory peaks; call after {@link #close()} */
    MemoryPeak peak() {
        return sampler.peak();
    }

    /** @return the flow samples with their means and peaks; call after {@link #close()} */
    FlowSummary flow() {
        return flow == null ? FlowSummary.NONE : flow.summary();
    }

    /** @return the {@code --report} time series; call after {@link #close()} */
    ReportSeries series() {
        return series == null ? ReportSeries.NONE : series;
    }

    /** @return the soak series; call after {@link #close()} */
    SoakReport soak() {
        return soak.report();
    }

    /**
     * Stops the monitor thread after one last sample, and ends the progress line.
     *
     * @throws IllegalStateException when a sample or a progress tick failed (a periodic job that
     *     throws is not run again, so its failure is reported here), or the thread did not stop
     */
    @Override
    public void close() {
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(1, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the monitor thread did not stop within 1 s");
            }
            for (ScheduledFuture<?> job : jobs) {
                if (job.isDone() && !job.isCancelled()) { // a periodic job is only done when it threw
                    job.get();
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("sampling memory or printing progress failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the monitor thread", e);
        }
        sampler.sample(); // the main thread now owns the samplers: the scheduler has terminated
        if (flow != null) {
            flow.sample();
        }
        if (series != null) {
            series.sample(); // the last point: the end of the run
        }
        printer.finish();
    }
}
