package io.sluice.bench.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the temp directory's disk can do, measured with {@code dd} in the same run: sequential write and read of
 * one file, through the page cache and with direct I/O (the device itself), each the median of {@value #RUNS} runs.
 * Used by the main thread.
 *
 * @param writeCached  bytes/s written into the page cache ({@code dd of=... bs=1M})
 * @param writeDirect  bytes/s written with {@code oflag=direct}
 * @param readCached   bytes/s read from the page cache (the file just written)
 * @param readDirect   bytes/s read with {@code iflag=direct}
 * @param bytes        size of the probe file
 * @param measurements how many measurements (of {@value #RUNS} runs each) these figures are the mean of
 */
record DiskLimits(double writeCached, double writeDirect, double readCached, double readDirect, long bytes,
                  int measurements) {

    /** dd's summary line: "N bytes (...) copied, S s, ...". */
    private static final Pattern SUMMARY = Pattern.compile("^(\\d+) bytes .*copied, ([0-9.,eE+-]+) s");

    /** dd runs each measurement this many times and keeps the median: a single direct read can be far off. */
    static final int RUNS = 3;

    /** How long one dd or sync may take before the bench gives up on it: a hung device must not hang the bench. */
    static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(10);

    /**
     * @param directory where the probe file goes (and is deleted again)
     * @param bytes     how much to write, rounded down to whole MiB (at least 1)
     * @throws IOException when dd cannot run or its output cannot be read
     */
    static DiskLimits measure(Path directory, long bytes) throws IOException, InterruptedException {
        long mebibytes = Math.max(1, bytes >> 20);
        Path probe = directory.resolve("sluice-dd-probe-" + ProcessHandle.current().pid());
        double[] writeCached = new double[RUNS];
        double[] readCached = new double[RUNS];
        double[] writeDirect = new double[RUNS];
        double[] readDirect = new double[RUNS];
        try {
            String of = "of=" + probe;
            String ifProbe = "if=" + probe;
            String count = "count=" + mebibytes;
            for (int run = 0; run < RUNS; run++) {
                // conv=fdatasync would measure the device; without it the rate is what the page cache absorbs.
                writeCached[run] = dd("if=/dev/zero", of, "bs=1M", count);
                readCached[run] = dd(ifProbe, "of=/dev/null", "bs=1M");
                writeDirect[run] = dd("if=/dev/zero", of, "bs=1M", count, "oflag=direct");
                readDirect[run] = dd(ifProbe, "of=/dev/null", "bs=1M", "iflag=direct");
            }
            return new DiskLimits(median(writeCached), median(writeDirect), median(readCached), median(readDirect),
                    mebibytes << 20, 1);
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    /**
     * A buffered dd write of {@code bytes} (whole MiB), once: the page-cache limit for a write as large as the run's.
     * Past the kernel's dirty-page thresholds ({@code vm.dirty_background_ratio}, {@code vm.dirty_ratio}) a writer
     * is throttled toward the pace of write-back, so the 1 GiB probe of {@link #measure} says little about a 4 GB
     * write, which can be several times slower. The file is deleted and the file system synced afterwards, so what
     * follows does not share the disk with its write-back.
     *
     * @return bytes/s
     * @throws IOException when dd or sync cannot run or fails
     */
    static double bufferedWriteOf(Path directory, long bytes) throws IOException, InterruptedException {
        long mebibytes = Math.max(1, bytes >> 20);
        Path probe = directory.resolve("sluice-dd-volume-" + ProcessHandle.current().pid());
        try {
            return dd("if=/dev/zero", "of=" + probe, "bs=1M", "count=" + mebibytes);
        } finally {
            Files.deleteIfExists(probe);
            flush(directory);
        }
    }

    /**
     * Writes the file system's dirty pages to disk ({@code sync -f}), so that what follows does not compete with the
     * kernel's write-back of what came before: without it, a read phase right after a write of several GB shares the
     * disk and the CPUs with gigabytes of write-back that dd's read, on a quiet disk, did not.
     *
     * @return how long it took, in ns
     * @throws IOException when sync cannot run or fails
     */
    static long flush(Path directory) throws IOException, InterruptedException {
        long start = System.nanoTime();
        run(List.of("sync", "-f", directory.toString()));
        return System.nanoTime() - start;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static double dd(String... operands) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("dd");
        command.addAll(List.of(operands));
        String output = run(command);
        for (String line : output.split("\n")) {
            Matcher matcher = SUMMARY.matcher(line.trim());
            if (matcher.find()) {
                double seconds = Double.parseDouble(matcher.group(2).replace(',', '.'));
                return Long.parseLong(matcher.group(1)) / Math.max(seconds, 1e-9);
            }
        }
        throw new IOException("cannot read the rate from: " + String.join(" ", command) + ": " + output.trim());
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        return run(command, COMMAND_TIMEOUT);
    }

    /**
     * Runs {@code command} to its end, at most {@code timeout}, and returns what it printed, standard error included.
     * The output goes to a temporary file rather than a pipe, so the wait is the only thing that blocks and the
     * timeout always applies (reading a pipe to its end would block for as long as the child lives).
     *
     * @throws IOException when it cannot start, runs longer than {@code timeout} (it is then killed) or exits with a
     *                     non-zero status; the message names the command and holds its output
     */
    static String run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Path output = Files.createTempFile("sluice-bench-command", ".out");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            try {
                if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    process.destroyForcibly().waitFor();
                    throw new IOException(String.join(" ", command) + " timed out after " + timeout.toMillis()
                            + " ms and was killed: " + read(output));
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                throw e;
            }
            String printed = read(output);
            if (process.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed with exit status " + process.exitValue()
                        + ": " + printed);
            }
            return printed;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static String read(Path output) throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8).trim();
    }

    /**
     * The limits of this measurement and {@code other} together: each figure the mean of the two, weighted by how
     * many measurements each side already is (so that a third measurement counts as much as each of the first two).
     *
     * @throws IllegalArgumentException when the two probed files differ in size
     */
    DiskLimits meanWith(DiskLimits other) {
        if (other.bytes != bytes) {
            throw new IllegalArgumentException("dd probes of different sizes: " + bytes + " and " + other.bytes
                    + " bytes");
        }
        return new DiskLimits(meanWith(writeCached, other.writeCached, other),
                meanWith(writeDirect, other.writeDirect, other), meanWith(readCached, other.readCached, other),
                meanWith(readDirect, other.readDirect, other), bytes, measurements + other.measurements);
    }

    /** {@code mine} (a figure of this) and {@code theirs} (the same figure of {@code other}), weighted. */
    private double meanWith(double mine, double theirs, DiskLimits other) {
        return (mine * measurements + theirs * other.measurements) / (measurements + other.measurements);
    }

    /** Two lines, write and read, each figure of dd's; for the progress output. */
    String describe() {
        return String.format(Locale.ROOT, "  dd write %s page cache, %s direct%n  dd read  %s page cache, %s direct%n",
                rate(writeCached), rate(writeDirect), rate(readCached), rate(readDirect));
    }

    /** One line per limit, with Sluice's rate beside it. */
    String compare(double sluiceWrite, double sluiceRead) {
        return String.format(Locale.ROOT, "  dd write %s page cache, %s direct; sluice write %s = %.2fx / %.2fx%n"
                        + "  dd read  %s page cache, %s direct; sluice read  %s = %.2fx / %.2fx%n",
                rate(writeCached), rate(writeDirect), rate(sluiceWrite), sluiceWrite / writeCached,
                sluiceWrite / writeDirect,
                rate(readCached), rate(readDirect), rate(sluiceRead), sluiceRead / readCached, sluiceRead / readDirect);
    }

    static String rate(double bytesPerSecond) {
        return String.format(Locale.ROOT, "%.2f GB/s", bytesPerSecond / 1e9);
    }
}
