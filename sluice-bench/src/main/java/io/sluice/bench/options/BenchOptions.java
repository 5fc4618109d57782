package io.sluice.bench.options;

import io.sluice.api.ShuffleConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A parsed, checked command line. Immutable value.
 *
 * @param command what to do
 * @param help true when --help was given (nothing else is checked then)
 * @param producers producer tasks (run, serve)
 * @param consumers consumer tasks (run, serve; consume: the ticket's subpartitions)
 * @param environments environments in this process (run; 1 for serve and consume)
 * @param workload what the producers generate, and how much
 * @param shuffleConfig the library configuration of every environment
 * @param timeout how long the run may take
 * @param sampleInterval how often the soak sampler takes a sample
 * @param progress how progress is shown
 * @param json true for a JSON summary
 * @param bindAddress where serve's data port listens
 * @param ticket what consume reads; null for run and serve
 * @param blocking true for --partition-type blocking (run only)
 * @param warmUpBytes blocking runs: bytes written and read in each unmeasured warm-up round (0: no warm-up)
 * @param warmUpRounds blocking runs: the most warm-up rounds; fewer once the JIT compiler has settled
 * @param report where --report writes the HTML page, or null
 */
public record BenchOptions(Command command, boolean help, int producers, int consumers, int environments,
                           Workload workload, ShuffleConfig shuffleConfig, Duration timeout,
                           Duration sampleInterval, ProgressMode progress, boolean json, String bindAddress,
                           ServeTicket ticket, boolean blocking, long warmUpBytes, int warmUpRounds, Path report) {

    /** Without --timeout, a run gets this long; a timed run gets its duration plus this. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    /** @return producer-consumer pairs, each one channel of records */
    public int channels() {
        return producers * consumers;
    }
}
