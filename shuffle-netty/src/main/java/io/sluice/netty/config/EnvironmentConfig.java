package io.sluice.netty.config;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleConfigValidator;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.tls.TlsSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of one environment, read and checked once at creation.
 *
 * @param numberOfSegments        network memory / segment size
 * @param segmentSize             bytes of one network buffer
 * @param buffersPerChannel       exclusive buffers of a remote input channel
 * @param floatingBuffersPerGate  floating buffers of a gate
 * @param maxBuffersPerSubpartition producer-side cap per subpartition
 * @param flushInterval           zero flushes every record
 * @param inputSpinWait           how long a consumer spins for data before it parks; zero never spins
 * @param transport               auto, nio, epoll or local
 * @param port                    0 for any free port
 * @param serverThreads           0 for the number of cores
 * @param clientThreads           0 for the number of cores
 * @param connectTimeout          connect timeout (every transport, the local one included)
 * @param bindTimeout             how long start() waits for the data server to be registered and bound
 * @param initialBackoff          first delay before a partition request is retried
 * @param maxBackoff              largest delay between retries
 * @param heartbeatInterval       quiet time after which a connection sends a heartbeat
 * @param heartbeatTimeout        time without a complete frame after which a connection is closed
 * @param tls                     the TLS settings, or null when TLS is disabled
 * @param tmpDirs                 directories for blocking partitions' files (never empty)
 * @param blockingReadMemory      bytes this environment uses to read blocking partitions, all readers together
 * @param blockingWriteMemory     the most bytes of network memory one blocking partition fills before writing a region
 * @param blockingZeroCopy        auto, always or never: when blocking partitions' data goes to TCP by sendfile
 * @param compressionCodec        none or lz4
 * @param blockingChecksums       whether blocking partitions store a checksum with every buffer
 * @param blockingReadTimeout     how long a blocking reader waits for read memory held by consumers before it fails
 * @param debloat                 buffer debloating of the environment's gates
 */
public record EnvironmentConfig(int numberOfSegments, int segmentSize, int buffersPerChannel,
                                int floatingBuffersPerGate, int maxBuffersPerSubpartition, Duration flushInterval,
                                Duration inputSpinWait, String transport, int port, int serverThreads,
                                int clientThreads,
                                Duration connectTimeout, Duration bindTimeout, Duration initialBackoff,
                                Duration maxBackoff, Duration heartbeatInterval, Duration heartbeatTimeout,
                                TlsSettings tls, List<String> tmpDirs, long blockingReadMemory,
                                long blockingWriteMemory, String blockingZeroCopy, String compressionCodec,
                                boolean blockingChecksums, Duration blockingReadTimeout,
                                DebloatSettings debloat) {

    /**
     * Reads and checks the context's configuration.
     *
     * @throws IllegalArgumentException listing every problem (unknown keys with the closest known one, values that
     *                                  do not parse, values out of range, limits that depend on other options or on
     *                                  the environment ({@link EnvironmentLimits}), TLS files missing or unreadable),
     *                                  one per line
     */
    public static EnvironmentConfig from(ShuffleEnvironmentContext context) {
        return from(context, DirectMemory.ofThisJvm());
    }

    /** {@link #from(ShuffleEnvironmentContext)} against the given direct memory (a test seam). */
    static EnvironmentConfig from(ShuffleEnvironmentContext context, DirectMemory directMemory) {
        ShuffleConfig config = context.config();
        List<String> problems = new ArrayList<>(ShuffleConfigValidator.problems(config));
        long segmentSize = 0;
        long segments = 0;
        TlsSettings tls = null;
        if (problems.isEmpty()) {
            tls = TlsSettings.read(config, problems);
            long networkMemory = context.networkMemoryBytes();
            segmentSize = config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE);
            segments = networkMemory / segmentSize;
            if (EnvironmentLimits.checkSegments(networkMemory, segmentSize, problems)) {
                if (!context.localCommunicationOnly()) {
                    // Without a transport every channel is local and no gate takes exclusive or floating buffers.
                    EnvironmentLimits.checkGateMemory(config, networkMemory, segmentSize, segments, problems);
                }
                EnvironmentLimits.checkDirectMemory(networkMemory, directMemory, problems);
            }
            EnvironmentLimits.checkTmpDirs(tmpDirs(config.get(ShuffleOptions.TMP_DIRS)), problems);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("Invalid shuffle configuration for environment " + context.resourceId()
                    + " (" + problems.size() + (problems.size() == 1 ? " problem" : " problems") + "):\n"
                    + String.join("\n", problems));
        }
        return new EnvironmentConfig((int) segments, (int) segmentSize,
                config.get(ShuffleOptions.BUFFERS_PER_CHANNEL),
                config.get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE),
                config.get(ShuffleOptions.MAX_BUFFERS_PER_SUBPARTITION),
                config.get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL),
                config.get(ShuffleOptions.INPUT_SPIN_WAIT),
                config.get(ShuffleOptions.NETTY_TRANSPORT),
                config.get(ShuffleOptions.NETTY_PORT),
                config.get(ShuffleOptions.NETTY_SERVER_THREADS),
                config.get(ShuffleOptions.NETTY_CLIENT_THREADS),
                config.get(ShuffleOptions.NETTY_CONNECT_TIMEOUT),
                config.get(ShuffleOptions.NETTY_BIND_TIMEOUT),
                config.get(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF),
                config.get(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF),
                config.get(ShuffleOptions.NETTY_HEARTBEAT_INTERVAL),
                config.get(ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT),
                tls,
                tmpDirs(config.get(ShuffleOptions.TMP_DIRS)),
                config.get(ShuffleOptions.BLOCKING_READ_MEMORY),
                config.get(ShuffleOptions.BLOCKING_WRITE_MEMORY),
                config.get(ShuffleOptions.BLOCKING_ZERO_COPY),
                config.get(ShuffleOptions.COMPRESSION_CODEC),
                config.get(ShuffleOptions.BLOCKING_CHECKSUMS),
                config.get(ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT),
                DebloatSettings.from(config));
    }

    /** The comma-separated directories, trimmed, empty entries dropped; java.io.tmpdir when there are none. */
    private static List<String> tmpDirs(String value) {
        List<String> dirs = new ArrayList<>();
        for (String dir : value.split(",")) {
            if (!dir.isBlank()) {
                dirs.add(dir.trim());
            }
        }
        if (dirs.isEmpty()) {
            dirs.add(System.getProperty("java.io.tmpdir"));
        }
        return List.copyOf(dirs);
    }

    /** Buffers of the environment-wide read budget for blocking partitions; at least one. */
    public int blockingReadBuffers() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, blockingReadMemory / segmentSize));
    }

    /** Whether data buffers are compressed with lz4. */
    public boolean compressionEnabled() {
        return "lz4".equals(compressionCodec);
    }

    /** Buffers a partition's pool must hold at least: one per subpartition, plus one to switch buffers. */
    public int partitionRequiredBuffers(int subpartitions) {
        return subpartitions + 1;
    }

    /**
     * The most buffers a blocking partition's pool may take: {@code shuffle.blocking.write-memory} in segments, and
     * never fewer than a pipelined partition's pool ({@link #partitionMaxBuffers}).
     */
    public int blockingPartitionMaxBuffers(int subpartitions) {
        long writeBuffers = Math.min(Integer.MAX_VALUE, blockingWriteMemory / segmentSize);
        return Math.max(partitionMaxBuffers(subpartitions), (int) writeBuffers);
    }

    /** The most buffers a partition's pool may take: as many as its consumers can credit, plus the floating share. */
    public int partitionMaxBuffers(int subpartitions) {
        long max = (long) subpartitions * buffersPerChannel + floatingBuffersPerGate;
        return (int) Math.max(partitionRequiredBuffers(subpartitions), Math.min(Integer.MAX_VALUE, max));
    }
}
