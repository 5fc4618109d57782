package io.sluice.api;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Every option the library reads, with its default and its allowed range (checked by
 * {@link ShuffleConfigValidator}; the range of each is in its Javadoc). Ranges are wide enough for any real use and
 * narrow enough that no arithmetic on a value overflows downstream; a value outside one is refused when the
 * configuration is validated, naming the option, the value and the range. Some limits depend on other options and
 * on the environment (the memory a gate needs against the pool, the network memory against the JVM's direct memory);
 * the environment checks those when it is created. Constants only; any thread.
 */
public final class ShuffleOptions {

    /** Smallest segment: a buffer must hold at least a record's length and a useful payload. */
    static final long MIN_SEGMENT_SIZE = 4096;
    /**
     * Largest segment: far above any useful buffer size, and small enough that the transport's write limit of 16
     * segments stays an int.
     */
    static final long MAX_SEGMENT_SIZE = 64L << 20;
    /** Most memory any byte-size option may name: no machine gives one environment more. */
    static final long MAX_MEMORY = 1L << 40;
    /**
     * Most exclusive buffers per channel, and most floating buffers per gate: 2 and 8 are the defaults, and a few
     * hundred already cover links with a large bandwidth-delay product.
     */
    static final int MAX_BUFFERS_PER_CHANNEL_OR_GATE = 1 << 16;
    /**
     * Most event-loop threads of one kind: more than cores only queue on the same cores, and each thread opens a
     * selector (file descriptors) when the environment starts.
     */
    static final int MAX_EVENT_LOOP_THREADS = Math.max(256, 4 * Runtime.getRuntime().availableProcessors());
    /**
     * Shortest timeout or backoff: they are counted in milliseconds downstream, where less would be 0, which means
     * "never" to Netty's connect and handshake timeouts.
     */
    static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    /** Longest duration of any option: a longer wait or interval makes no sense for a shuffle. */
    static final Duration MAX_DURATION = Duration.ofDays(1);
    /**
     * Longest spin a consumer may be configured to: a wake-up costs tens of microseconds, so a longer spin only
     * burns a core.
     */
    static final Duration MAX_SPIN_WAIT = Duration.ofMillis(10);
    /** Largest TCP port. */
    private static final int MAX_PORT = 65535;
    /**
     * Smallest buffer debloating may cut: a producer raises any smaller size a consumer announces to it, since below
     * it the frame and buffer overhead outweighs the bytes.
     */
    static final long MIN_DEBLOATED_BUFFER_SIZE = 64;
    /** Most samples the buffer size average may span: at the default period that is over half an hour. */
    static final int MAX_DEBLOAT_SAMPLES = 10_000;

    /**
     * Class name of the {@link ShuffleServiceFactory} that {@link ShuffleServiceLoader} returns. Range: not blank;
     * {@link ShuffleServiceLoader#load} refuses a class it cannot find, load or instantiate, or that is not a
     * factory.
     */
    public static final ConfigOption<String> SHUFFLE_SERVICE_FACTORY_CLASS = new ConfigOption<>(
            "shuffle-service-factory.class", "io.sluice.netty.NettyShuffleServiceFactory",
            "Class name of the ShuffleServiceFactory to load.",
            ConfigValueType.STRING, ConfigValueRule.notBlank());

    /**
     * Network memory of one environment, in bytes. Range: 4k to 1t; the environment also needs at least two segments
     * (a partition of one subpartition), with a transport at least {@link #BUFFERS_PER_CHANNEL} +
     * {@link #FLOATING_BUFFERS_PER_GATE} segments (a gate of one remote channel), at most 2^31-1 segments, and no
     * more than the JVM's direct memory limit ({@code -XX:MaxDirectMemorySize}), since it is allocated at creation.
     */
    public static final ConfigOption<Long> MEMORY_TOTAL = new ConfigOption<>(
            "shuffle.memory.total", 64L << 20,
            "Network memory of one environment; it is cut into memory.total / segment-size segments.",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(MIN_SEGMENT_SIZE, MAX_MEMORY));

    /** Size of one memory segment (one network buffer), in bytes. Range: 4k to 64m, and at most memory.total. */
    public static final ConfigOption<Long> MEMORY_SEGMENT_SIZE = new ConfigOption<>(
            "shuffle.memory.segment-size", 32L << 10,
            "Size of one memory segment, i.e. of one network buffer.",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(MIN_SEGMENT_SIZE, MAX_SEGMENT_SIZE));

    /**
     * Exclusive buffers of one remote input channel. Range: 1 to 65536; with {@link #FLOATING_BUFFERS_PER_GATE}, at
     * most the environment's segments (checked when an environment with a transport is created), and a gate of
     * many channels needs channels x this + the floating buffers (checked at the gate's setup).
     */
    public static final ConfigOption<Integer> BUFFERS_PER_CHANNEL = new ConfigOption<>(
            "shuffle.buffers-per-channel", 2,
            "Exclusive buffers of a remote input channel (its initial credit).",
            ConfigValueType.INT, ConfigValueRule.between(1, MAX_BUFFERS_PER_CHANNEL_OR_GATE));

    /**
     * Buffers one input gate shares among its channels on demand. Range: 0 to 65536; with
     * {@link #BUFFERS_PER_CHANNEL}, at most the environment's segments (see there).
     */
    public static final ConfigOption<Integer> FLOATING_BUFFERS_PER_GATE = new ConfigOption<>(
            "shuffle.floating-buffers-per-gate", 8,
            "Floating buffers of an input gate, lent to the channels with the largest backlog.",
            ConfigValueType.INT, ConfigValueRule.between(0, MAX_BUFFERS_PER_CHANNEL_OR_GATE));

    /** Producer-side cap on the buffers one subpartition may hold. Range: 1 to 2147483647 (no cap). */
    public static final ConfigOption<Integer> MAX_BUFFERS_PER_SUBPARTITION = new ConfigOption<>(
            "shuffle.max-buffers-per-subpartition", 10,
            "Producer-side cap on the buffers one subpartition may hold; above it the partition's availableFuture() stays incomplete.",
            ConfigValueType.INT, ConfigValueRule.between(1, Integer.MAX_VALUE));

    /**
     * Longest time data may sit in a partly filled buffer; 0 flushes after every record. Range: 0, or 1 ms to 1 day
     * (the flusher ticks at most every millisecond; below that it would spin).
     */
    public static final ConfigOption<Duration> OUTPUT_FLUSH_INTERVAL = new ConfigOption<>(
            "shuffle.output.flush-interval", Duration.ofMillis(100),
            "Longest time data may wait in a partly filled buffer before it is sent; 0 = flush after every record.",
            ConfigValueType.DURATION, ConfigValueRule.zeroOrDurationBetween(MIN_TIMEOUT, MAX_DURATION));

    /** Longest a spin of a consumer that waits for data lasts before it parks; 0 never spins. Range: 0 to 10 ms. */
    public static final ConfigOption<Duration> INPUT_SPIN_WAIT = new ConfigOption<>(
            "shuffle.input.spin-wait", Duration.ZERO,
            "How long a consumer thread that finds its gate empty spins on its core, watching for data, before it "
                    + "parks (0 = park at once). Data arriving during the spin is taken without a thread wake-up, "
                    + "which saves tens of microseconds per record on a mostly idle stream (with flush-interval 0), at "
                    + "the price of up to this much CPU per wait; only for consumers with a core to spare. Applies to "
                    + "InputGate.getNext() (and RecordReader), not to a consumer that waits on availableFuture().",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(Duration.ZERO, MAX_SPIN_WAIT));

    /**
     * Whether a consumer reads a producer of its own environment in-process; false sends those reads through the
     * transport like any other producer's (for testing the transport with one environment). Range: true or false.
     */
    public static final ConfigOption<Boolean> INPUT_LOCAL_CHANNELS = new ConfigOption<>(
            "shuffle.input.local-channels", true,
            "Whether a consumer reads a producer of its own environment in-process (no network, no copy); false "
                    + "reads it over the transport (shuffle.netty.transport) like a producer of another environment, "
                    + "and the environment then serves a data port even when created for local communication only. "
                    + "For testing the transport with one environment.",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /** Netty transport: auto, nio, epoll or local (in-JVM). Range: one of those four. */
    public static final ConfigOption<String> NETTY_TRANSPORT = new ConfigOption<>(
            "shuffle.netty.transport", "auto",
            "Netty transport: auto (epoll where available, else nio), nio, epoll, or local (in-JVM).",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("auto", "nio", "epoll", "local")));

    /** Data port of the environment; 0 picks any free port. Range: 0 to 65535. */
    public static final ConfigOption<Integer> NETTY_PORT = new ConfigOption<>(
            "shuffle.netty.port", 0,
            "Data port the environment listens on; 0 = any free port.",
            ConfigValueType.INT, ConfigValueRule.between(0, MAX_PORT));

    /**
     * Server event-loop threads; 0 means one per core. Range: 0 to 256, or to 4 x the number of cores where that is
     * more.
     */
    public static final ConfigOption<Integer> NETTY_SERVER_THREADS = new ConfigOption<>(
            "shuffle.netty.server-threads", 0,
            "Event-loop threads of the data server; 0 = number of cores.",
            ConfigValueType.INT, ConfigValueRule.between(0, MAX_EVENT_LOOP_THREADS));

    /**
     * Client event-loop threads; 0 means one per core. Range: 0 to 256, or to 4 x the number of cores where that is
     * more.
     */
    public static final ConfigOption<Integer> NETTY_CLIENT_THREADS = new ConfigOption<>(
            "shuffle.netty.client-threads", 0,
            "Event-loop threads of the data client; 0 = number of cores.",
            ConfigValueType.INT, ConfigValueRule.between(0, MAX_EVENT_LOOP_THREADS));

    /** How long a consumer waits for a connection to a producer. Range: 1 ms to 1 day. */
    public static final ConfigOption<Duration> NETTY_CONNECT_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.connect-timeout", Duration.ofSeconds(10),
            "How long a consumer waits for a connection to a producer to open.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /** How long starting an environment waits for its data server to come up. Range: 1 ms to 1 day. */
    public static final ConfigOption<Duration> NETTY_BIND_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.bind-timeout", Duration.ofSeconds(30),
            "How long start() waits for the data server's event loop to register and bind it; past it start() fails.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * First wait before a request for a not yet registered partition is retried. Range: 1 ms to 1 day, and at most
     * {@link #PARTITION_REQUEST_MAX_BACKOFF}.
     */
    public static final ConfigOption<Duration> PARTITION_REQUEST_INITIAL_BACKOFF = new ConfigOption<>(
            "shuffle.partition-request.initial-backoff", Duration.ofMillis(100),
            "First wait before a request for a partition that is not registered yet is retried; doubles per retry.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * Longest wait between retries; past it the request fails with PartitionNotFoundException. Range: 1 ms to 1 day,
     * and at least {@link #PARTITION_REQUEST_INITIAL_BACKOFF}.
     */
    public static final ConfigOption<Duration> PARTITION_REQUEST_MAX_BACKOFF = new ConfigOption<>(
            "shuffle.partition-request.max-backoff", Duration.ofSeconds(10),
            "Longest wait between partition request retries; once reached, the request fails with PartitionNotFoundException.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /** Whether every data connection uses TLS with mutual authentication. Range: true or false. */
    public static final ConfigOption<Boolean> SSL_ENABLED = new ConfigOption<>(
            "shuffle.security.ssl.enabled", false,
            "TLS with mutual authentication on every data connection (TCP transports; local is exempt).",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /**
     * This environment's private key and certificate chain. Range: any text; with TLS enabled, a readable keystore
     * file (checked when the environment is created).
     */
    public static final ConfigOption<String> SSL_KEYSTORE = new ConfigOption<>(
            "shuffle.security.ssl.keystore", "",
            "File with this environment's private key and certificate chain; PKCS12 or JKS, the type is detected from the file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the keystore file. Range: any text; with TLS enabled, the one that opens the keystore. */
    public static final ConfigOption<String> SSL_KEYSTORE_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.keystore-password", "",
            "Password of the keystore file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the private key; empty means the keystore's password. Range: any text. */
    public static final ConfigOption<String> SSL_KEY_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.key-password", "",
            "Password of the private key in the keystore; empty = the keystore password.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /**
     * The certificates of the CAs whose peers are trusted. Range: any text; with TLS enabled, a readable truststore
     * file (checked when the environment is created).
     */
    public static final ConfigOption<String> SSL_TRUSTSTORE = new ConfigOption<>(
            "shuffle.security.ssl.truststore", "",
            "File with the certificates of the CAs whose peers are trusted; PKCS12 or JKS.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** Password of the truststore file. Range: any text; with TLS enabled, the one that opens the truststore. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_PASSWORD = new ConfigOption<>(
            "shuffle.security.ssl.truststore-password", "",
            "Password of the truststore file.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /** TLS engine: the JDK's, or OpenSSL (BoringSSL through netty-tcnative). Range: jdk or openssl. */
    public static final ConfigOption<String> SSL_PROVIDER = new ConfigOption<>(
            "shuffle.security.ssl.provider", "jdk",
            "TLS engine: jdk, or openssl (BoringSSL through io.netty:netty-tcnative-boringssl-static on the class path).",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("jdk", "openssl")));

    /** Longest time a TLS handshake may take before the connection is refused. Range: 1 ms to 1 day. */
    public static final ConfigOption<Duration> SSL_HANDSHAKE_TIMEOUT = new ConfigOption<>(
            "shuffle.security.ssl.handshake-timeout", Duration.ofSeconds(10),
            "Longest time a TLS handshake may take; a peer that has not finished it by then is refused.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * A connection with nothing else to send sends a heartbeat this often. Range: 1 ms to 1 day, and shorter than
     * {@link #NETTY_HEARTBEAT_TIMEOUT}.
     */
    public static final ConfigOption<Duration> NETTY_HEARTBEAT_INTERVAL = new ConfigOption<>(
            "shuffle.netty.heartbeat-interval", Duration.ofSeconds(10),
            "A connection that had nothing else to send for this long sends a small heartbeat frame.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * A connection on which no complete frame arrives for this long is closed. Range: 1 ms to 1 day, and longer than
     * {@link #NETTY_HEARTBEAT_INTERVAL}.
     */
    public static final ConfigOption<Duration> NETTY_HEARTBEAT_TIMEOUT = new ConfigOption<>(
            "shuffle.netty.heartbeat-timeout", Duration.ofSeconds(60),
            "A connection on which no complete frame arrived for this long is closed (dead peer, stalled or slow-drip connection); its channels fail with TransportException.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * Directories for the files of blocking partitions; empty means java.io.tmpdir. Range: any text; each listed
     * directory must be a valid path, and the environment must be able to create and write its directory there
     * (checked when the environment is created).
     */
    public static final ConfigOption<String> TMP_DIRS = new ConfigOption<>(
            "shuffle.tmp-dirs", "",
            "Comma-separated directories for the files of blocking partitions (one environment directory under each, "
                    + "used round-robin); empty = java.io.tmpdir.",
            ConfigValueType.STRING, ConfigValueRule.any());

    /**
     * Memory one environment uses to read blocking partitions, all readers together. Range: one segment
     * ({@link #MEMORY_SEGMENT_SIZE}) to 1t.
     */
    public static final ConfigOption<Long> BLOCKING_READ_MEMORY = new ConfigOption<>(
            "shuffle.blocking.read-memory", 32L << 20,
            "Memory one environment uses to read blocking partitions from disk, shared by all readers; at least one "
                    + "segment.",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(1, MAX_MEMORY));

    /**
     * How long a blocking partition's reader waits for a segment of {@link #BLOCKING_READ_MEMORY} while every
     * segment is with a consumer that has not recycled it (none can be taken back); then the reader fails, naming the
     * read memory. Range: 1 ms to 1 d.
     */
    public static final ConfigOption<Duration> BLOCKING_READ_MEMORY_TIMEOUT = new ConfigOption<>(
            "shuffle.blocking.read-memory-timeout", Duration.ofMinutes(5),
            "How long a reader of a blocking partition waits for a segment of shuffle.blocking.read-memory while "
                    + "every segment is held by consumers that have not recycled it (more readers than segments, "
                    + "and their consumers stopped reading); then its consumer fails with a ShuffleException that "
                    + "names shuffle.blocking.read-memory, instead of waiting for ever.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * The most network memory one blocking partition gathers before it writes a region to disk; borrowed from the
     * environment's spare network memory, given back early when others need it. Range: 1 byte to 1t (less than a
     * segment means regions of a pipelined partition's pool).
     */
    public static final ConfigOption<Long> BLOCKING_WRITE_MEMORY = new ConfigOption<>(
            "shuffle.blocking.write-memory", 16L << 20,
            "The most network memory (of shuffle.memory.total) one blocking partition fills before it writes it to "
                    + "disk as one region: larger regions mean longer sequential reads and writes. Borrowed from the "
                    + "memory no other pool needs (a partition always gets its subpartitions + 1 buffers) and given "
                    + "back early, by writing the region, when another pool or gate needs it.",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(1, MAX_MEMORY));

    /**
     * How a blocking partition's data reaches a TCP connection without TLS or compression: sendfile from the file
     * (always), through the read memory (never), or sendfile only to consumers on other hosts (auto). Range: auto,
     * always or never.
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
     * records always carry theirs. Range: true or false.
     */
    public static final ConfigOption<Boolean> BLOCKING_CHECKSUMS = new ConfigOption<>(
            "shuffle.blocking.checksums", true,
            "Whether every buffer of a blocking partition is stored with a CRC32C that each read verifies before "
                    + "using it (for data sent by sendfile, the receiver does), so that data damaged on disk fails "
                    + "its consumer with CorruptDataException instead of being delivered; false saves the CPU of "
                    + "computing and checking them. The index, and the counts at the end of each subpartition, are "
                    + "always checked.",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /** Codec for data buffers on the wire and on disk. Range: none or lz4. */
    public static final ConfigOption<String> COMPRESSION_CODEC = new ConfigOption<>(
            "shuffle.compression.codec", "none",
            "Compression of data buffers on the wire and on disk: none or lz4; both ends of a connection must agree.",
            ConfigValueType.STRING, ConfigValueRule.oneOf(List.of("none", "lz4")));

    /**
     * Whether consumers' gates size the buffers their producers cut from their throughput (buffer debloating), so
     * that about {@link #DEBLOAT_TARGET} of data is in flight towards each gate. Range: true or false.
     */
    public static final ConfigOption<Boolean> DEBLOAT_ENABLED = new ConfigOption<>(
            "shuffle.debloat.enabled", false,
            "Buffer debloating: each input gate measures its throughput and announces to its producers the buffer "
                    + "size that keeps shuffle.debloat.target of data in flight towards it; the producers cut their "
                    + "next buffers at that size (pipelined partitions). Less data in flight under backpressure, for "
                    + "faster aligned checkpoints; memory use is unchanged (a buffer still takes a segment).",
            ConfigValueType.BOOLEAN, ConfigValueRule.any());

    /** How long the data in flight towards a gate should take it to consume, with debloating. Range: 1 ms to 1 day. */
    public static final ConfigOption<Duration> DEBLOAT_TARGET = new ConfigOption<>(
            "shuffle.debloat.target", Duration.ofSeconds(1),
            "With buffer debloating, the time the buffers in flight towards a gate should take it to consume at its "
                    + "measured throughput: buffer size = throughput x target / buffers in flight.",
            ConfigValueType.DURATION, ConfigValueRule.durationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * How often the environment recalculates and announces each gate's buffer size; 0 when the engine does, through
     * {@link InputGate#triggerDebloating()}. Range: 0, or 1 ms to 1 day.
     */
    public static final ConfigOption<Duration> DEBLOAT_PERIOD = new ConfigOption<>(
            "shuffle.debloat.period", Duration.ofMillis(200),
            "With buffer debloating, how often the environment's timer recalculates each gate's buffer size; 0 = "
                    + "never: the engine calls InputGate.triggerDebloating() itself (as Flink does).",
            ConfigValueType.DURATION, ConfigValueRule.zeroOrDurationBetween(MIN_TIMEOUT, MAX_DURATION));

    /**
     * Smallest buffer size a gate announces with debloating; a value above the segment size means a segment.
     * Range: 64 bytes to 64m.
     */
    public static final ConfigOption<Long> DEBLOAT_MIN_BUFFER_SIZE = new ConfigOption<>(
            "shuffle.debloat.min-buffer-size", 256L,
            "With buffer debloating, the smallest buffer size a gate announces (the largest is the segment size).",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(MIN_DEBLOATED_BUFFER_SIZE, MAX_SEGMENT_SIZE));

    /**
     * With debloating, the buffer size a gate announces to its producers when it is set up, before it has measured
     * anything, and from which its average starts (as Flink's {@code taskmanager.memory.starting-segment-size}); held
     * within {@link #DEBLOAT_MIN_BUFFER_SIZE} and the segment size. Range: 64 bytes to 64m.
     */
    public static final ConfigOption<Long> DEBLOAT_STARTING_BUFFER_SIZE = new ConfigOption<>(
            "shuffle.debloat.starting-buffer-size", 1024L,
            "With buffer debloating, the buffer size a gate announces at its setup and grows or shrinks from as it "
                    + "measures its throughput (within min-buffer-size and the segment size): a job that starts "
                    + "backpressured then queues small buffers, not whole segments.",
            ConfigValueType.BYTES, ConfigValueRule.bytesBetween(MIN_DEBLOATED_BUFFER_SIZE, MAX_SEGMENT_SIZE));

    /**
     * With debloating, how much a recalculated buffer size must differ from the one last announced, in percent of
     * it, to be announced; sizes at the minimum or the segment size always are. Range: 0 to 100.
     */
    public static final ConfigOption<Integer> DEBLOAT_THRESHOLD_PERCENTAGE = new ConfigOption<>(
            "shuffle.debloat.threshold-percentage", 25,
            "With buffer debloating, a new buffer size is announced only when it differs from the last one announced "
                    + "by at least this percentage of it (or reaches the minimum or the segment size).",
            ConfigValueType.INT, ConfigValueRule.between(0, 100));

    /**
     * With debloating, the number of recalculations the buffer size is averaged over (an exponential moving average
     * of weight 2 / (samples + 1)). Range: 1 to 10000.
     */
    public static final ConfigOption<Integer> DEBLOAT_SAMPLES = new ConfigOption<>(
            "shuffle.debloat.samples", 20,
            "With buffer debloating, the number of recalculations the buffer size is averaged over; 1 follows the "
                    + "latest throughput at once.",
            ConfigValueType.INT, ConfigValueRule.between(1, MAX_DEBLOAT_SAMPLES));

    /** Every public constant of this class, in declaration order: an option added above cannot be left out. */
    private static final List<ConfigOption<?>> ALL = declaredOptions();

    private ShuffleOptions() {
    }

    /** @return every option, in the order of the constants above; unmodifiable */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }

    private static List<ConfigOption<?>> declaredOptions() {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field field : ShuffleOptions.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (field.getType() == ConfigOption.class && Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers)) {
                try {
                    options.add((ConfigOption<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read option " + field.getName(), e);
                }
            }
        }
        return List.copyOf(options);
    }
}
