package io.sluice.bench;

import java.util.Locale;

/** What a sluice-bench run does: the command word, {@link #RUN} when absent. */
enum Command {
    /** Producers and consumers in one process, over loopback. */
    RUN,
    /** Producer environment whose partitions another process consumes. */
    SERVE,
    /** Consumer of the partitions a 'serve' process offers. */
    CONSUME;

    /** @return the word on the command line */
    String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
