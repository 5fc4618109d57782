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
    /**
     * Longest spin a consumer may be configured to: a wake-up costs tens of microseconds, so a longer spin only
     * burns a core.
     */
    static final Duration MAX_SPIN_WAIT = Duration.ofMillis(10);
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

    /** Longest a spin of a consumer that waits for data lasts before it parks; 0 never spins. */
    public static final ConfigOption<Duration> INPUT_SPIN_WAIT = new ConfigOption<>(
            "shuffle.input.spin-wait", Duration.ZERO,
            "How long a consumer thread that finds its gate empty spins on its core, watching for data, before it "
                    + "parks (0 = park at once). Data arriving during the spin is taken without a thread wake-up, "
                    + "which saves tens of microseconds per record on a mostly idle stream (with flush-interval 0), at "
                    + "the price of up to this much CPU per wait; only for consumers with a core to spare. Applies to "
                    + "InputGate.getNext() (and RecordReader), not to a consumer that waits on availableFuture().",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(Duration.ZERO, MAX_SPIN_WAIT));

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

    /** How long starting an environment waits for its data server to come up. */
    public static final ConfigOption<Duration> NETTY_BIND_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.bind-timeout", Duration.ofSeconds(30),
            "How long start() waits for the data server's event loop to register and bind it; past it start() fails.",
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

    /** Whether every data connection uses TLS with mutual authentication. */
    public static final ConfigOption<Boolean> SSL_ENABLED = new ConfigOption<>(
            "shuffle.security.ssl.enabled", false,
            "TLS with mutual authentication on every data connection (TCP transports; local is exempt).",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /** This environment's private key and certificate chain. */
    public static final ConfigOption<String> SSL_KEYSTORE = new ConfigOption<>(
            "shuffle.security.ssl.keystore", "",
            "File with this environment's private key and certificate chain; PKCS12 or JKS, the type is detected from the file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the keystore file. */
    public static final ConfigOption<String> SSL_KEYSTORE_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.keystore-password", "",
            "Password of the keystore file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the private key; empty means the keystore's password. */
    public static final ConfigOption<String> SSL_KEY_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.key-password", "",
            "Password of the private key in the keystore; empty = the keystore password.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** The certificates of the CAs whose peers are trusted. */
    public static final ConfigOption<String> SSL_TRUSTSTORE = new ConfigOption<>(
            "shuffle.security.ssl.truststore", "",
            "File with the certificates of the CAs whose peers are trusted; PKCS12 or JKS.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the truststore file. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.truststore-password", "",
            "Password of the truststore file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** TLS engine: the JDK's, or OpenSSL (BoringSSL through netty-tcnative). */
    public static final ConfigOption<String> SSL_PROVIDER = new ConfigOption<>(
            "shuffle.security.ssl.provider", "jdk",
            "TLS engine: jdk, or openssl (BoringSSL through io.netty:netty-tcnative-boringssl-static on the class path).",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("jdk", "openssl")));

    /** Longest time a TLS handshake may take before the connection is refused. */
    public static final ConfigOption<Duration> SSL_HANDSHAKE_TIMEOUT = new ConfigOption<>(
            "shuffle.security.ssl.handshake-timeout", Duration.ofSeconds(10),
            "Longest time a TLS handshake may take; a peer that has not finished it by then is refused.",
            ConfigValueType.DURATION, ConfigValueRule.positiveDuration());

    /** A connection with nothing else to send sends a heartbeat this often. */
    public static final ConfigOption<Duration> NETTY_HEARTBEAT_INTERVAL = new ConfigOption<>(
            "shuffle.netty.heartbeat-interval", Duration.ofSeconds(10),
            "A connection that had nothing else to send for this long sends a small heartbeat frame.",
            ConfigValueType.DURATION, ConfigValueRule.positiveDuration());

    /** A connection on which no complete frame arrives for this long is closed. */
    public static final ConfigOption<Duration> NETTY_HEARTBEAT_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.heartbeat-timeout", Duration.ofSeconds(60),
            "A connection on which no complete frame arrived for this long is closed (dead peer, stalled or slow-drip connection); its channels fail with TransportException.",
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

    /**
     * The most network memory one blocking partition gathers before it writes a region to disk; borrowed from the
     * environment's spare network memory, given back early when others need it.
     */
    public static final ConfigOption<Long> BLOCKING_WRITE_MEMORY = new ConfigOption<>(
            "shuffle.blocking.write-memory", 16L << 20,
            "The most network memory (of shuffle.memory.total) one blocking partition fills before it writes it to "
                    + "disk as one region: larger regions mean longer sequential reads and writes. Borrowed from the "
                    + "memory no other pool needs (a partition always gets its subpartitions + 1 buffers) and given "
                    + "back early, by writing the region, when another pool or gate needs it.",
            ConfigValueType.BYTES, ConfigValueRule.atLeast(1));

    /**
     * How a blocking partition's data reaches a TCP connection without TLS or compression: sendfile from the file
     * (always), through the read memory (never), or sendfile only to consumers on other hosts (auto).
     */
    public static final ConfigOption<String> BLOCKING_ZERO_COPY = new ConfigOption<>(
            "shuffle.blocking.zero-copy", "auto",
            "How blocking partitions' data goes to a TCP connection without TLS or compression: always = sendfile "
                    + "from the file (zero copy); never = read into shuffle.blocking.read-memory and written from "
                    + "there; auto = sendfile to consumers on other hosts, the read memory for consumers on this host "
                    + "(loopback or a local address), where sendfile measured more CPU.",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("auto", "always", "never")));

    /**
     * Whether each buffer a blocking partition stores carries a CRC32C that every read of it verifies; its index
     * records always carry theirs.
     */
    public static final ConfigOption<Boolean> BLOCKING_CHECKSUMS = new ConfigOption<>(
            "shuffle.blocking.checksums", true,
            "Whether every buffer of a blocking partition is stored with a CRC32C that each read verifies before "
                    + "using it (for data sent by sendfile, the receiver does), so that data damaged on disk fails "
                    + "its consumer with CorruptDataException instead of being delivered; false saves the CPU of "
                    + "computing and checking them. The index, and the counts at the end of each subpartition, are "
                    + "always checked.",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /** Codec for data buffers on the wire and on disk: none or lz4. */
    public static final ConfigOption<String> COMPRESSION_CODEC = new ConfigOption<>(
            "shuffle.compression.codec", "none",
            "Compression of data buffers on the wire and on disk: none or lz4; both ends of a connection must agree.",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("none", "lz4")));

    private static final List<ConfigOption<?>> ALL = List.of(
            SHUFFLE_SERVICE_FACTORY_CLASS, MEMORY_TOTAL, MEMORY_SEGMENT_SIZE, BUFFERS_PER_CHANNEL,
            FLOATING_BUFFERS_PER_GATE, MAX_BUFFERS_PER_SUBPARTITION, OUTPUT_FLUSH_INTERVAL, INPUT_SPIN_WAIT,
            NETTY_TRANSPORT, NETTY_PORT, NETTY_SERVER_THREADS, NETTY_CLIENT_THREADS,
            NETTY_CONNECT_TIMEOUT, NETTY_BIND_TIMEOUT, PARTITION_REQUEST_INITIAL_BACKOFF, PARTITION_REQUEST_MAX_BACKOFF,
            SSL_ENABLED, SSL_KEYSTORE, SSL_KEYSTORE_PASSWORD, SSL_KEY_PASSWORD, SSL_TRUSTSTORE,
            SSL_TRUSTSTORE_PASSWORD, SSL_PROVIDER, SSL_HANDSHAKE_TIMEOUT,
            NETTY_HEARTBEAT_INTERVAL, NETTY_HEARTBEAT_TIMEOUT,
            TMP_DIRS, BLOCKING_READ_MEMORY, BLOCKING_WRITE_MEMORY, BLOCKING_ZERO_COPY, COMPRESSION_CODEC,
            BLOCKING_CHECKSUMS);

    private ShuffleOptions() {
    }

    /** @return every option, in the order of the constants above; unmodifiable */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }
}
