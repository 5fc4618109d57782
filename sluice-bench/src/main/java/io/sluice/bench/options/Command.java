package io.sluice.bench.options;

import java.util.Locale;

/** What a sluice-bench run does: the command word, {@link #RUN} when absent. */
public enum Command {
    /** Producers and consumers in one process, over loopback. */
    RUN,
    /** Producer environment whose partitions another process consumes. */
    SERVE,
    /** Consumer of the partitions a 'serve' process offers. */
    CONSUME;

    /** @return the word on the command line */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
