package io.sluice.bench.command;

import io.sluice.api.ByteSizes;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.CorruptRecord;
import io.sluice.bench.options.Flags;
import io.sluice.bench.options.LibraryFlags;
import io.sluice.bench.options.ProgressMode;
import io.sluice.bench.options.Workload;
import io.sluice.tests.support.RecordSizes;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options every moving command ({@code run}, {@code serve}, {@code consume}) takes: volume,
 * transport and memory, timeouts, output. A picocli mixin; filled by the parser, then read by the
 * main thread.
 */
final class CommonOptions {

    /** Records moved without --bytes or --duration. */
    static final String DEFAULT_BYTES = "4g";

    @Option(names = Flags.BYTES, order = 5, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "total bytes of records to move (consume: what serve sends, for the progress line)"
                    + " [default: " + DEFAULT_BYTES + "]")
    Long bytes;

    @Option(names = Flags.DURATION, order = 6, paramLabel = "TIME", converter = DurationConverter.class,
            description = "move records for this long instead of a number of bytes")
    Duration duration;

    @Option(names = Flags.TRANSPORT, order = 7, paramLabel = "auto|nio|epoll|local",
            description = "the Netty transport between environments (local = in-JVM, for run only)"
                    + " [default: ${bundle:library-default.transport}]")
    String transport;

    @Option(names = Flags.SSL, order = 8, paramLabel = "jdk|openssl",
            description = "TLS with mutual authentication on every connection, with this provider; without"
                    + " --conf shuffle.security.ssl.keystore=... run and serve make a throw-away CA and certificate"
                    + " [default: ${bundle:library-default.ssl}]")
    String ssl;

    @Option(names = Flags.MEMORY, order = 10, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "network memory of each environment [default: ${bundle:library-default.memory}]")
    Long memory;

    @Option(names = Flags.SEGMENT_SIZE, order = 11, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "size of one network buffer [default: ${bundle:library-default.segment-size}]")
    Long segmentSize;

    @Option(names = Flags.COMPRESSION, order = 15, paramLabel = "none|lz4",
            description = "compression of data buffers on the wire and on disk [default: ${bundle:library-default.compression}]")
    String compression;

    @Option(names = Flags.CONF, order = 16, paramLabel = "KEY=VALUE",
            description = "any other library option, e.g. --conf shuffle.netty.server-threads=1; repeatable")
    Map<String, String> conf = new LinkedHashMap<>();

    @Option(names = Flags.TIMEOUT, order = 18, paramLabel = "TIME", converter = DurationConverter.class,
            description = "fail the run when it has not finished by then"
                    + " [default: 10min; with --duration: the duration + 10min]")
    Duration timeout;

    @Option(names = Flags.SAMPLE_INTERVAL, order = 19, paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "1min",
            description = "soak sampling: print direct memory, heap after GC, network buffers in use and open connections"
                    + " this often; --json has the series and whether each stayed flat after warm-up"
                    + " [default: ${DEFAULT-VALUE}]")
    Duration sampleInterval;

    @Option(names = Flags.PROGRESS, order = 20, paramLabel = "auto|tty|plain|off", defaultValue = "auto",
            description = "progress on stderr: in place on a terminal (tty), a line every few seconds (plain), or none"
                    + " [default: ${DEFAULT-VALUE}]")
    ProgressMode progress;

    @Option(names = Flags.JSON, order = 21, description = "print the summary as one JSON object on stdout instead of the table")
    boolean json;

    @Option(names = Flags.REPORT, order = 22, paramLabel = "FILE.html",
            description = "also write a self-contained HTML page with charts of the run (throughput and network-buffer"
                    + " pool usage over time, latency percentiles, writer backpressure) to this file")
    String report;

    @Option(names = {"-h", Flags.HELP}, order = 99, usageHelp = true, description = "print this help")
    boolean help;

    /**
     * @return the library settings these options and {@code --conf} make, not yet checked
     * @throws UsageException when a {@code --conf} names no library option or one that has a flag of its own
     */
    ShuffleConfig librarySettings() throws UsageException {
        ShuffleConfig config = ShuffleConfig.empty();
        for (Map.Entry<String, String> entry : conf.entrySet()) {
            String key = entry.getKey().trim();
            if (!key.startsWith("shuffle.") && !key.equals(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS.key())) {
                throw new UsageException(Flags.CONF + " '" + key + "' is not a library option; they start with 'shuffle.'"
                        + " (or are " + ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS.key() + ")");
            }
            String flag = LibraryFlags.flagOf(key);
            if (flag != null) {
                throw new UsageException(Flags.CONF + " " + key + ": use " + flag + " instead");
            }
            config = config.with(key, entry.getValue().trim());
        }
        if (transport != null) {
            config = config.with(ShuffleOptions.NETTY_TRANSPORT.key(), transport);
        }
        if (ssl != null) {
            config = config.with(ShuffleOptions.SSL_PROVIDER.key(), ssl).with(ShuffleOptions.SSL_ENABLED, true);
        }
        if (memory != null) {
            config = config.with(ShuffleOptions.MEMORY_TOTAL, memory);
        }
        if (segmentSize != null) {
            config = config.with(ShuffleOptions.MEMORY_SEGMENT_SIZE, segmentSize);
        }
        if (compression != null) {
            config = config.with(ShuffleOptions.COMPRESSION_CODEC.key(), compression);
        }
        return config;
    }

    /**
     * @param sizes the record sizes
     * @param seed the seed of sizes and payloads
     * @param corrupt the record to damage, or null
     * @return what the producers generate, and how much
     * @throws UsageException when the volume is wrong
     */
    Workload workload(RecordSizes sizes, long seed, CorruptRecord corrupt) throws UsageException {
        if (bytes != null && duration != null) {
            throw new UsageException(Flags.BYTES + " and " + Flags.DURATION + " exclude each other: give one");
        }
        if (duration != null) {
            if (duration.isZero() || duration.isNegative()) {
                throw new UsageException(Flags.DURATION + " must be longer than 0, e.g. --duration 30s");
            }
            return new Workload(sizes, 0, duration, seed, corrupt);
        }
        long total = bytes != null ? bytes : ByteSizes.parse(DEFAULT_BYTES);
        if (total < 1) {
            throw new UsageException(Flags.BYTES + " must be at least 1 byte, e.g. --bytes 1g");
        }
        return new Workload(sizes, total, null, seed, corrupt);
    }

    /** A timed run brings its own deadline: without --timeout it gets its duration plus the default timeout. */
    Duration timeout(Workload workload) throws UsageException {
        if (timeout == null) {
            return workload.timed() ? workload.duration().plus(BenchOptions.DEFAULT_TIMEOUT) : BenchOptions.DEFAULT_TIMEOUT;
        }
        if (timeout.isZero() || timeout.isNegative()) {
            throw new UsageException(Flags.TIMEOUT + " must be longer than 0, e.g. --timeout 5min");
        }
        return timeout;
    }

    /** @return how often the soak sampler samples */
    Duration sampleInterval() throws UsageException {
        if (sampleInterval.isZero() || sampleInterval.isNegative()) {
            throw new UsageException(Flags.SAMPLE_INTERVAL + " must be longer than 0, e.g. --sample-interval 1min");
        }
        return sampleInterval;
    }

    /** The page's directory must exist: a typo is reported before a long run, not after it. */
    Path report() throws UsageException {
        if (report == null) {
            return null;
        }
        Path file;
        try {
            file = Path.of(report.trim()).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new UsageException(Flags.REPORT + " '" + report + "' is not a file name: " + e.getReason());
        }
        if (report.isBlank() || Files.isDirectory(file)) {
            throw new UsageException(Flags.REPORT + " '" + report + "' is not a file; name the page to write, e.g. "
                    + Flags.REPORT + " run.html");
        }
        if (!Files.isDirectory(file.getParent())) {
            throw new UsageException(Flags.REPORT + " " + report + ": the directory " + file.getParent()
                    + " does not exist; create it or write the page elsewhere");
        }
        return file;
    }
}
