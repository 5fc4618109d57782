package io.sluice.api;

import java.time.Duration;
import java.util.List;

/**
 * Every option the library reads, with its default and its allowed range (checked by
 * {@link ShuffleConfigValidator}). Constants only; any thread.
 */
public final class ShuffleOptions {

    /** Smallest segment: a buffer must hold at least a record's length and a useful payload. */
    static final long MIN_SEGMENT_SIZE = 4096;
    /** Largest segment: a segment is one int-indexed ByteBuffer; 1g keeps well clear of 2^31. */
    static final long MAX_SEGMENT_SIZE = 1L << 30;
    /** Largest TCP port. */
    private static final int MAX_PORT = 65535;

    /** Class name of the {@link ShuffleServiceFactory} that {@link ShuffleServiceLoader} returns. */
    public static final ConfigOption<String> SHUFFLE_SERVICE_FACTORY_CLASS = new ConfigOption<>(
            "shuffle-service-factory.class", "io.sluice.netty.NettyShuffleServiceFactory",
            "Class name of the ShuffleServiceFactory to load.",
            ConfigValueType.STRING, ConfigValueRule.notBlank());

    /** Network memory of one environment, in bytes. */
    public static final ConfigOption<Long> MEMORY_TOTAL = new ConfigOption<>(
            "shuffle.memory.total", 64L << 20,
            "Network memory of one environment; it is cut into memory.total / segment-size segments.",
            ConfigValueType.BYTES, ConfigValueRule.atLeast(1));

    /** Size of one memory segment (one network buffer), in bytes. */
    public static final ConfigOption<Long> MEMORY_SEGMENT_SIZE = new ConfigOption<>(
            "shuffle.memory.segment-size", 32L << 10,
            "Size of one memory segment, i.e. of one network buffer.",
            ConfigValueType.BYTES, ConfigValueRule.between(MIN_SEGMENT_SIZE, MAX_SEGMENT_SIZE));

    /** Exclusive buffers of one remote input channel. */
    public static final ConfigOption<Integer> BUFFERS_PER_CHANNEL = new ConfigOption<>(
            "shuffle.buffers-per-channel", 2,
            "Exclusive buffers of a remote input channel (its initial credit).",
            ConfigValueType.INT, ConfigValueRule.atLeast(1));

    /** Buffers one input gate shares among its channels on demand. */
    public static final ConfigOption<Integer> FLOATING_BUFFERS_PER_GATE = new ConfigOption<>(
            "shuffle.floating-buffers-per-gate", 8,
            "Floating buffers of an input gate, lent to the channels with the largest backlog.",
            ConfigValueType.INT, ConfigValueRule.atLeast(0));

    /** Producer-side cap on the buffers one subpartition may hold. */
    public static final ConfigOption<Integer> MAX_BUFFERS_PER_SUBPARTITION = new ConfigOption<>(
            "shuffle.max-buffers-per-subpartition", 10,
            "Producer-side cap on the buffers one subpartition may hold; above it the partition's availableFuture() stays incomplete.",
            ConfigValueType.INT, ConfigValueRule.atLeast(1));

    /** Longest time data may sit in a partly filled buffer; 0 flushes after every record. */
    public static final ConfigOption<Duration> OUTPUT_FLUSH_INTERVAL = new ConfigOption<>(
            "shuffle.output.flush-interval", Duration.ofMillis(100),
            "Longest time data may wait in a partly filled buffer before it is sent; 0 = flush after every record.",
            ConfigValueType.DURATION, ConfigValueRule.any());

    /** Netty transport: auto, nio, epoll or local (in-JVM). */
    public static final ConfigOption<String> NETTY_TRANSPORT = new ConfigOption<>(
            "shuffle.netty.transport", "auto",
            "Netty transport: auto (epoll where available, else nio), nio, epoll, or local (in-JVM).",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("auto", "nio", "epoll", "local")));

    /** Data port of the environment; 0 picks any free port. */
    public static final ConfigOption<Integer> NETTY_PORT = new ConfigOption<>(
            "shuffle.netty.port", 0,
            "Data port the environment listens on; 0 = any free port.",
            ConfigValueType.INT, ConfigValueRule.between(0, MAX_PORT));

    /** Server event-loop threads; 0 means one per core. */
    public static final ConfigOption<Integer> NETTY_SERVER_THREADS = new ConfigOption<>(
            "shuffle.netty.server-threads", 0,
            "Event-loop threads of the data server; 0 = number of cores.",
            ConfigValueType.INT, ConfigValueRule.atLeast(0));

    /** Client event-loop threads; 0 means one per core. */
    public static final ConfigOption<Integer> NETTY_CLIENT_THREADS = new ConfigOption<>(
            "shuffle.netty.client-threads", 0,
            "Event-loop threads of the data client; 0 = number of cores.",
            ConfigValueType.INT, ConfigValueRule.atLeast(0));

    /** How long a consumer waits for a connection to a producer. */
    public static final ConfigOption<Duration> NETTY_CONNECT_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.connect-timeout", Duration.ofSeconds(10),
            "How long a consumer waits for a connection to a producer to open.",
            ConfigValueType.DURATION, ConfigValueRule.positiveDuration());

    /** First wait before a request for a not yet registered partition is retried. */
    public static final ConfigOption<Duration> PARTITION_REQUEST_INITIAL_BACKOFF = new ConfigOption<>(
            "shuffle.partition-request.initial-backoff", Duration.ofMillis(100),
            "First wait before a request for a partition that is not registered yet is retried; doubles per retry.",
            ConfigValueType.DURATION, ConfigValueRule.positiveDuration());

    /** Longest wait between retries; past it the request fails with PartitionNotFoundException. */
    public static final ConfigOption<Duration> PARTITION_REQUEST_MAX_BACKOFF = new ConfigOption<>(
            "shuffle.partition-request.max-backoff", Duration.ofSeconds(10),
            "Longest wait between partition request retries; once reached, the request fails with PartitionNotFoundException.",
            ConfigValueType.DURATION, ConfigValueRule.positiveDuration());

    /** Directories for the files of blocking partitions; empty means java.io.tmpdir. */
    public static final ConfigOption<String> TMP_DIRS = new ConfigOption<>(
            "shuffle.tmp-dirs", "",
            "Comma-separated directories for the files of blocking partitions (one environment directory under each, "
                    + "used round-robin); empty = java.io.tmpdir.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Memory one environment uses to read blocking partitions, all readers together. */
    public static final ConfigOption<Long> BLOCKING_READ_MEMORY = new ConfigOption<>(
            "shuffle.blocking.read-memory", 32L << 20,
            "Memory one environment uses to read blocking partitions from disk, shared by all readers; at least one "
                    + "segment.",
            ConfigValueType.BYTES, ConfigValueRule.atLeast(1));

    /** Codec for data buffers on the wire and on disk: none or lz4. */
    public static final ConfigOption<String> COMPRESSION_CODEC = new ConfigOption<>(
            "shuffle.compression.codec", "none",
            "Compression of data buffers on the wire and on disk: none or lz4; both ends of a connection must agree.",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("none", "lz4")));

    private static final List<ConfigOption<?>> ALL = List.of(
            SHUFFLE_SERVICE_FACTORY_CLASS, MEMORY_TOTAL, MEMORY_SEGMENT_SIZE, BUFFERS_PER_CHANNEL,
            FLOATING_BUFFERS_PER_GATE, MAX_BUFFERS_PER_SUBPARTITION, OUTPUT_FLUSH_INTERVAL,
            NETTY_TRANSPORT, NETTY_PORT, NETTY_SERVER_THREADS, NETTY_CLIENT_THREADS,
            NETTY_CONNECT_TIMEOUT, PARTITION_REQUEST_INITIAL_BACKOFF, PARTITION_REQUEST_MAX_BACKOFF,
            // Second round: the TLS and heartbeat options go before these three (API.md order).
            TMP_DIRS, BLOCKING_READ_MEMORY, COMPRESSION_CODEC);

    private ShuffleOptions() {
    }

    /** @return every option, in the order of the constants above; unmodifiable */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }
}
