package io.sluice.bench.options;

/**
 * The names of sluice-bench's options, as written on the command line. The picocli annotations,
 * the messages and the lines the tool prints for the user to pass back (serve's consume line)
 * all use these, so a rename cannot leave one of them behind. Constants only.
 */
public final class Flags {

    public static final String PRODUCERS = "--producers";
    public static final String CONSUMERS = "--consumers";
    public static final String ENVIRONMENTS = "--environments";
    public static final String RECORD_SIZE = "--record-size";
    public static final String BYTES = "--bytes";
    public static final String DURATION = "--duration";
    public static final String TRANSPORT = "--transport";
    public static final String SSL = "--ssl";
    public static final String FLUSH_INTERVAL = "--flush-interval";
    public static final String MEMORY = "--memory";
    public static final String SEGMENT_SIZE = "--segment-size";
    public static final String BUFFERS_PER_CHANNEL = "--buffers-per-channel";
    public static final String FLOATING_BUFFERS = "--floating-buffers";
    public static final String PARTITION_TYPE = "--partition-type";
    public static final String WARMUP_BYTES = "--warmup-bytes";
    public static final String WARMUP_ROUNDS = "--warmup-rounds";
    public static final String COMPRESSION = "--compression";
    public static final String CONF = "--conf";
    public static final String SEED = "--seed";
    public static final String TIMEOUT = "--timeout";
    public static final String SAMPLE_INTERVAL = "--sample-interval";
    public static final String PROGRESS = "--progress";
    public static final String JSON = "--json";
    public static final String REPORT = "--report";
    public static final String BIND = "--bind";
    public static final String PORT = "--port";
    public static final String CONNECT = "--connect";
    public static final String PRODUCER_ID = "--producer-id";
    public static final String PARTITIONS = "--partitions";
    public static final String SUBPARTITIONS = "--subpartitions";
    public static final String CORRUPT_RECORD = "--corrupt-record";
    public static final String HELP = "--help";

    private Flags() {
    }
}
