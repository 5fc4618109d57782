package io.sluice.bench;

/**
 * The names of sluice-bench's options, as written on the command line. The picocli annotations,
 * the messages and the lines the tool prints for the user to pass back (serve's consume line)
 * all use these, so a rename cannot leave one of them behind. Constants only.
 */
final class Flags {

    static final String PRODUCERS = "--producers";
    static final String CONSUMERS = "--consumers";
    static final String ENVIRONMENTS = "--environments";
    static final String RECORD_SIZE = "--record-size";
    static final String BYTES = "--bytes";
    static final String DURATION = "--duration";
    static final String TRANSPORT = "--transport";
    static final String SSL = "--ssl";
    static final String FLUSH_INTERVAL = "--flush-interval";
    static final String MEMORY = "--memory";
    static final String SEGMENT_SIZE = "--segment-size";
    static final String BUFFERS_PER_CHANNEL = "--buffers-per-channel";
    static final String FLOATING_BUFFERS = "--floating-buffers";
    static final String PARTITION_TYPE = "--partition-type";
    static final String WARMUP_BYTES = "--warmup-bytes";
    static final String WARMUP_ROUNDS = "--warmup-rounds";
    static final String COMPRESSION = "--compression";
    static final String CONF = "--conf";
    static final String SEED = "--seed";
    static final String TIMEOUT = "--timeout";
    static final String SAMPLE_INTERVAL = "--sample-interval";
    static final String PROGRESS = "--progress";
    static final String JSON = "--json";
    static final String REPORT = "--report";
    static final String BIND = "--bind";
    static final String PORT = "--port";
    static final String CONNECT = "--connect";
    static final String PRODUCER_ID = "--producer-id";
    static final String PARTITIONS = "--partitions";
    static final String SUBPARTITIONS = "--subpartitions";
    static final String CORRUPT_RECORD = "--corrupt-record";
    static final String HELP = "--help";

    private Flags() {
    }
}
