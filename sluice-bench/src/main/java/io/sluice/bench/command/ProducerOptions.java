package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.CorruptRecord;
import io.sluice.bench.options.Flags;
import io.sluice.bench.options.Workload;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordSizes;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options of the commands that run producers ({@code run}, {@code serve}): how many tasks,
 * what they write. A picocli mixin; filled by the parser, then read by the main thread.
 */
final class ProducerOptions {

    /** More tasks than this is a typo, not a benchmark (each task is a thread). */
    static final int MAX_TASKS = 4096;
    /** Channels are producers x consumers; each needs buffers on both sides. */
    static final int MAX_CHANNELS = 100_000;
    /** The record sizes without --record-size. */
    static final String DEFAULT_RECORD_SIZE = "mixed";
    /** The seed without --seed. */
    static final long DEFAULT_SEED = 1;

    @Option(names = Flags.PRODUCERS, order = 1, paramLabel = "N", defaultValue = "4",
            description = "producer tasks; each writes one partition with a subpartition per consumer [default: ${DEFAULT-VALUE}]")
    int producers;

    @Option(names = Flags.CONSUMERS, order = 2, paramLabel = "N", defaultValue = "4",
            description = "consumer tasks; each reads its subpartition of every partition (all-to-all) [default: ${DEFAULT-VALUE}]")
    int consumers;

    @Option(names = Flags.RECORD_SIZE, order = 4, paramLabel = "SIZES", converter = RecordSizesConverter.class,
            defaultValue = DEFAULT_RECORD_SIZE,
            description = "record sizes: SIZE, MIN..MAX, SIZE:WEIGHT,... or mixed (" + RecordSizes.MIXED
                    + "); at least 24 bytes [default: ${DEFAULT-VALUE}]")
    RecordSizes recordSizes;

    @Option(names = Flags.SEED, order = 17, paramLabel = "N", defaultValue = "" + DEFAULT_SEED,
            description = "seed of record sizes and payloads; the same seed moves the same bytes [default: ${DEFAULT-VALUE}]")
    long seed;

    @Option(names = Flags.FLUSH_INTERVAL, order = 9, paramLabel = "TIME", converter = DurationConverter.class,
            description = "longest time a record waits in a partly filled buffer (0 = flush after every record)"
                    + " [default: ${bundle:library-default.flush-interval}]")
    Duration flushInterval;

    @Option(names = Flags.CORRUPT_RECORD, order = 29, paramLabel = "CHANNEL:SEQ",
            description = "testing aid: damage that record after checksumming it, to see verification fail"
                    + " (channel = producer x consumers + consumer)")
    String corruptRecord;

    /** @return the producer tasks, checked */
    int producers() throws UsageException {
        return Counts.check(Flags.PRODUCERS, producers, 1, MAX_TASKS);
    }

    /** @return the consumer tasks, checked, also against the producers */
    int consumers() throws UsageException {
        int checked = Counts.check(Flags.CONSUMERS, consumers, 1, MAX_TASKS);
        if ((long) producers() * checked > MAX_CHANNELS) {
            throw new UsageException(Flags.PRODUCERS + " x " + Flags.CONSUMERS + " = " + (long) producers * checked
                    + " channels, more than " + MAX_CHANNELS + "; lower one of them");
        }
        return checked;
    }

    /** @return the library settings with the flush interval, when given */
    ShuffleConfig addTo(ShuffleConfig config) {
        return flushInterval == null ? config : config.with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, flushInterval);
    }

    /** @return what the producers generate, and how much */
    Workload workload(CommonOptions common) throws UsageException {
        if (recordSizes.min() < RecordFormat.HEADER_BYTES) {
            throw new UsageException(Flags.RECORD_SIZE + ": " + recordSizes.min() + " bytes is too small: every record"
                    + " carries a " + RecordFormat.HEADER_BYTES + "-byte header (channel, sequence, timestamp, checksum),"
                    + " so use at least " + RecordFormat.HEADER_BYTES);
        }
        return common.workload(recordSizes, seed, corruptRecord(producers(), consumers()));
    }

    private CorruptRecord corruptRecord(int producerCount, int consumerCount) throws UsageException {
        if (corruptRecord == null) {
            return null;
        }
        String text = corruptRecord;
        int colon = text.indexOf(':');
        String example = "; e.g. " + Flags.CORRUPT_RECORD + " 1:1000 damages record 1000 of channel 1";
        int channel;
        long sequence;
        try {
            channel = Integer.parseInt(text.substring(0, Math.max(colon, 0)).trim());
            sequence = Long.parseLong(text.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            throw new UsageException(Flags.CORRUPT_RECORD + " '" + text + "' is not CHANNEL:SEQUENCE" + example);
        }
        if (channel < 0 || channel >= producerCount * consumerCount || sequence < 0) {
            throw new UsageException(Flags.CORRUPT_RECORD + " " + text + ": channels are 0.."
                    + (producerCount * consumerCount - 1) + " and sequences start at 0" + example);
        }
        return new CorruptRecord(channel, sequence);
    }
}
