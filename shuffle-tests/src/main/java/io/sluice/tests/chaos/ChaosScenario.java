package io.sluice.tests.chaos;

import io.sluice.api.PartitionType;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.RecordSizes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Everything one seed decides: the environments and their transport and memory, an all-to-all job (every consumer
 * reads its subpartition of every producer's partition), the records, events and task events of each task, which
 * partitions are blocking and how those are stored and read, and the faults. A pure function of the seed
 * ({@link #fromSeed}): the same seed gives the same scenario on any machine.
 *
 * <p>Two streams of random numbers come from the seed. The first draws the pipelined job and its faults exactly as
 * before blocking partitions were added, so a seed that draws no blocking partition keeps its job; the second
 * decides whether the seed is a large gate ({@link LargeGateScenario}), which producers are blocking, the codec,
 * zero copy and read memory, and the faults of blocking partitions ({@link BlockingFaults}).
 * Immutable; any thread.
 *
 * @param seed                the seed it came from
 * @param transport           {@code local} or {@code nio}, for every environment
 * @param environments        2 to 4
 * @param segmentSize         bytes of one network buffer
 * @param segments            network buffers of each environment
 * @param buffersPerChannel   exclusive buffers of a remote channel
 * @param floatingBuffers     floating buffers of a gate
 * @param maxBuffersPerSubpartition producer-side cap
 * @param flushInterval       output flush interval
 * @param sizes               record sizes
 * @param producerEnvironment environment of each producer
 * @param consumerEnvironment environment of each consumer
 * @param records             records each producer emits, over all its subpartitions
 * @param events              for each producer, the record counts after which it broadcasts an event (negative:
 *                            a priority event after record -1-n)
 * @param taskEvents          for each consumer, the record counts after which it sends a task event
 * @param partitionTypes      the type of each producer's partition
 * @param codec               {@code shuffle.compression.codec} of every environment
 * @param zeroCopy            {@code shuffle.blocking.zero-copy} of every environment
 * @param readBuffers         {@code shuffle.blocking.read-memory} in segments, or 0 for the default
 * @param connectionIndexes   partitions are spread over this many connection indexes (round-robin by producer)
 * @param faults              what goes wrong, and when
 */
public record ChaosScenario(long seed, String transport, int environments, int segmentSize, int[] segments,
                            int buffersPerChannel, int floatingBuffers, int maxBuffersPerSubpartition,
                            Duration flushInterval, RecordSizes sizes, int[] producerEnvironment,
                            int[] consumerEnvironment, long[] records, long[][] events, long[][] taskEvents,
                            PartitionType[] partitionTypes, String codec, String zeroCopy, int readBuffers,
                            int connectionIndexes, List<Fault> faults) {

    private static final String[] SIZES = {"24", "24..256", "24..3k", "64:40,512:30,4k:20,32k:8,80k:2"};
    private static final int[] SEGMENT_SIZES = {4 << 10, 8 << 10, 32 << 10};
    static final Duration[] FLUSH_INTERVALS = {Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(5),
            Duration.ofMillis(20)};
    /** Bytes one producer emits at most: keeps a seed to a fraction of a second. */
    private static final long MAX_BYTES_PER_PRODUCER = 256 << 10;
    /** Records one producer emits at most (tiny records would make many). */
    private static final long MAX_RECORDS_PER_PRODUCER = 4_000;
    /** The faults of pipelined jobs, drawn from the first stream; the others come from {@link BlockingFaults}. */
    private static final FaultKind[] PIPELINED_FAULTS = {FaultKind.CONNECTION_CLOSE, FaultKind.CONNECTION_RESET,
            FaultKind.FRAME_DELAY, FaultKind.PRODUCER_FAIL, FaultKind.PRODUCER_ENVIRONMENT_CLOSE, FaultKind.GATE_CLOSE,
            FaultKind.CONSUMER_ENVIRONMENT_CLOSE, FaultKind.MEMORY_PRESSURE, FaultKind.SLOW_CONSUMER};
    /** Mixed into the seed for the second stream of random numbers. */
    private static final long SECOND_STREAM = 0x6A09E667F3BCC909L;
    /** One seed in this many is a large gate. */
    private static final int LARGE_GATE_ONE_IN = 50;
    /** Of the other seeds, this many in five have blocking partitions. */
    private static final int BLOCKING_IN_FIVE = 2;
    private static final String[] ZERO_COPY = {"auto", "always", "never"};
    /** Read memory in segments: tiny budgets make readers compete; 0 is the default (32m). */
    private static final int[] READ_BUFFERS = {0, 1, 2, 3, 4, 8, 16};
    /** How long a blocking reader waits for read segments held by stopped consumers: well inside the run's deadline. */
    private static final Duration READ_MEMORY_TIMEOUT = Duration.ofSeconds(2);

    /**
     * @param seed any long
     * @return the scenario that seed stands for
     */
    public static ChaosScenario fromSeed(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        SplittableRandom second = new SplittableRandom(seed ^ SECOND_STREAM);
        if (second.nextInt(LARGE_GATE_ONE_IN) == 0) {
            return LargeGateScenario.draw(seed, random);
        }
        String transport = random.nextBoolean() ? "local" : "nio";
        int environments = 2 + random.nextInt(3);
        int segmentSize = SEGMENT_SIZES[random.nextInt(SEGMENT_SIZES.length)];
        int buffersPerChannel = 1 + random.nextInt(3);
        int floatingBuffers = 1 + random.nextInt(8);
        int maxBuffersPerSubpartition = 2 + random.nextInt(9);
        Duration flushInterval = FLUSH_INTERVALS[random.nextInt(FLUSH_INTERVALS.length)];
        RecordSizes sizes = RecordSizes.parse(SIZES[random.nextInt(SIZES.length)]);
        int producers = 1 + random.nextInt(4);
        int consumers = 1 + random.nextInt(4);
        int[] producerEnvironment = new int[producers];
        int[] consumerEnvironment = new int[consumers];
        for (int p = 0; p < producers; p++) {
            producerEnvironment[p] = random.nextInt(environments);
        }
        for (int c = 0; c < consumers; c++) {
            consumerEnvironment[c] = random.nextInt(environments);
        }
        long[] records = new long[producers];
        long[][] events = new long[producers][];
        for (int p = 0; p < producers; p++) {
            records[p] = random.nextLong(1 + Math.min(MAX_RECORDS_PER_PRODUCER, (long) (MAX_BYTES_PER_PRODUCER / sizes.mean())));
            events[p] = new long[random.nextInt(5)];
            for (int e = 0; e < events[p].length; e++) {
                long after = random.nextLong(records[p] + 1);
                events[p][e] = random.nextBoolean() ? after : -1 - after;
            }
        }
        long[][] taskEvents = new long[consumers][];
        for (int c = 0; c < consumers; c++) {
            taskEvents[c] = new long[random.nextInt(4)];
            for (int e = 0; e < taskEvents[c].length; e++) {
                taskEvents[c][e] = random.nextLong(1 + total(records) / 2);
            }
            Arrays.sort(taskEvents[c]);
        }
        int segments = segmentsNeeded(producerEnvironment, consumerEnvironment, environments, buffersPerChannel,
                floatingBuffers) + 8 + random.nextInt(32);
        List<Fault> faults = faults(random, environments, producerEnvironment, consumerEnvironment, records);

        PartitionType[] types = new PartitionType[producers];
        Arrays.fill(types, PartitionType.PIPELINED_BOUNDED);
        String codec = "none";
        String zeroCopy = "auto";
        int readBuffers = 0;
        if (second.nextInt(5) < BLOCKING_IN_FIVE) {
            boolean allBlocking = second.nextBoolean();
            for (int p = 0; p < producers; p++) {
                types[p] = allBlocking || second.nextBoolean() ? PartitionType.BLOCKING : PartitionType.PIPELINED_BOUNDED;
            }
            types[second.nextInt(producers)] = PartitionType.BLOCKING;
            codec = second.nextBoolean() ? "lz4" : "none";
            zeroCopy = ZERO_COPY[second.nextInt(ZERO_COPY.length)];
            readBuffers = READ_BUFFERS[second.nextInt(READ_BUFFERS.length)];
            faults.addAll(BlockingFaults.draw(second, types, consumers, records, "lz4".equals(codec)));
        }
        int[] segmentsPerEnvironment = new int[environments];
        Arrays.fill(segmentsPerEnvironment, segments);
        return new ChaosScenario(seed, transport, environments, segmentSize, segmentsPerEnvironment,
                buffersPerChannel, floatingBuffers, maxBuffersPerSubpartition, flushInterval, sizes,
                producerEnvironment, consumerEnvironment, records, events, taskEvents, types, codec, zeroCopy,
                readBuffers, 1, List.copyOf(faults));
    }

    /** Partitions need subpartitions + 1, gates an exclusive share per remote channel and their floating buffers. */
    private static int segmentsNeeded(int[] producerEnvironment, int[] consumerEnvironment, int environments,
                                      int buffersPerChannel, int floatingBuffers) {
        int[] need = new int[environments];
        for (int env : producerEnvironment) {
            need[env] += consumerEnvironment.length + 1;
        }
        for (int env : consumerEnvironment) {
            for (int producerEnv : producerEnvironment) {
                if (producerEnv != env) {
                    need[env] += buffersPerChannel;
                }
            }
            need[env] += floatingBuffers;
        }
        int max = 0;
        for (int n : need) {
            max = Math.max(max, n);
        }
        return max * 2;
    }

    private static List<Fault> faults(SplittableRandom random, int environments, int[] producerEnvironment,
                                      int[] consumerEnvironment, long[] records) {
        List<Fault> faults = new ArrayList<>();
        if (random.nextInt(5) == 0) {
            return faults; // a fifth of the seeds run clean: then every record must arrive
        }
        List<int[]> connections = new ArrayList<>();
        for (int client = 0; client < environments; client++) {
            for (int server = 0; server < environments; server++) {
                if (client != server && contains(consumerEnvironment, client) && contains(producerEnvironment, server)) {
                    connections.add(new int[] {client, server});
                }
            }
        }
        long totalRecords = total(records);
        int count = 1 + random.nextInt(3);
        FaultKind[] kinds = PIPELINED_FAULTS;
        while (faults.size() < count) {
            FaultKind kind = kinds[random.nextInt(kinds.length)];
            int producer = random.nextInt(producerEnvironment.length);
            int consumer = random.nextInt(consumerEnvironment.length);
            // A quarter past the end: some faults come too late to hit, and the job must then simply succeed.
            long producerAt = random.nextLong(1 + records[producer] + records[producer] / 4);
            long consumerAt = random.nextLong(1 + totalRecords / consumerEnvironment.length * 5 / 4);
            switch (kind) {
                case CONNECTION_CLOSE, CONNECTION_RESET, FRAME_DELAY -> {
                    if (connections.isEmpty()) {
                        continue;
                    }
                    int[] connection = connections.get(random.nextInt(connections.size()));
                    faults.add(new Fault(kind, connection[0], connection[1], random.nextLong(60),
                            1 + random.nextInt(20), 1 + random.nextInt(10), false));
                }
                case PRODUCER_FAIL -> faults.add(new Fault(kind, producer, -1, producerAt, 0, 0, false));
                case PRODUCER_ENVIRONMENT_CLOSE -> faults.add(
                        new Fault(kind, producer, -1, producerAt, 0, 0, random.nextBoolean()));
                case GATE_CLOSE, CONSUMER_ENVIRONMENT_CLOSE -> faults.add(
                        new Fault(kind, consumer, -1, consumerAt, 0, 0, random.nextBoolean()));
                case MEMORY_PRESSURE -> faults.add(new Fault(kind, producer, random.nextInt(environments), producerAt,
                        1 + random.nextInt(16), 1 + random.nextInt(30), false));
                case SLOW_CONSUMER -> faults.add(
                        new Fault(kind, consumer, -1, consumerAt, 1 + random.nextInt(64), 0, false));
                default -> throw new IllegalStateException(kind + " is not a fault of pipelined jobs");
            }
        }
        return faults;
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }

    static long total(long[] values) {
        long sum = 0;
        for (long v : values) {
            sum += v;
        }
        return sum;
    }

    /** @return producers of the job */
    public int producers() {
        return producerEnvironment.length;
    }

    /** @return consumers of the job */
    public int consumers() {
        return consumerEnvironment.length;
    }

    /** @return whether one consumer reads the partitions of many one-subpartition producers */
    public boolean largeGate() {
        return producers() > LargeGateScenario.MAX_ORDINARY_PRODUCERS;
    }

    /**
     * @param producer a producer index
     * @return whether its partition is blocking (written to disk, read after its finish)
     */
    public boolean blocking(int producer) {
        return partitionTypes[producer] == PartitionType.BLOCKING;
    }

    /** @return whether some partition is blocking: then consumers set up their gates after those finished */
    public boolean anyBlocking() {
        for (PartitionType type : partitionTypes) {
            if (type == PartitionType.BLOCKING) {
                return true;
            }
        }
        return false;
    }

    /** @return whether every partition is blocking */
    public boolean allBlocking() {
        for (PartitionType type : partitionTypes) {
            if (type != PartitionType.BLOCKING) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param producer a producer index
     * @return the connection index consumers use towards its environment for its partition
     */
    public int connectionIndex(int producer) {
        return producer % connectionIndexes;
    }

    /**
     * @param environment an environment index
     * @return its configuration (the run adds its own temp directory)
     */
    public ShuffleConfig config(int environment) {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, (long) segmentSize)
                .with(ShuffleOptions.MEMORY_TOTAL, (long) segmentSize * segments[environment])
                .with(ShuffleOptions.BUFFERS_PER_CHANNEL, buffersPerChannel)
                .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, floatingBuffers)
                .with(ShuffleOptions.MAX_BUFFERS_PER_SUBPARTITION, maxBuffersPerSubpartition)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, flushInterval)
                .with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
                .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1);
        if (anyBlocking()) {
            // Consumers ask after the finish, so a request only waits when a fault took the partition away: then
            // it should fail soon, not after the default backoff of up to 10 s.
            config = config.with(ShuffleOptions.COMPRESSION_CODEC, codec)
                    .with(ShuffleOptions.BLOCKING_ZERO_COPY, zeroCopy)
                    .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, Duration.ofMillis(10))
                    .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofMillis(160))
                    // A reader starved by a stalled consumer that holds every read segment fails within the run's
                    // deadline; a consumer that reads recycles its segments long before.
                    .with(ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT, READ_MEMORY_TIMEOUT);
            if (readBuffers > 0) {
                config = config.with(ShuffleOptions.BLOCKING_READ_MEMORY, (long) readBuffers * segmentSize);
            }
        }
        return config;
    }

    /** @return one line per decision, for a failing seed's report */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("seed ").append(seed).append(": ").append(environments).append(" environments over ")
                .append(transport).append(", ").append(Arrays.toString(segments)).append(" segments of ")
                .append(segmentSize).append(" bytes each, ").append(buffersPerChannel).append(" buffers per channel, ")
                .append(floatingBuffers).append(" floating, cap ").append(maxBuffersPerSubpartition)
                .append(" per subpartition, flush ").append(flushInterval.toMillis()).append(" ms, sizes ")
                .append(sizes);
        if (connectionIndexes > 1) {
            text.append(", ").append(connectionIndexes).append(" connection indexes");
        }
        if (anyBlocking()) {
            text.append(", codec ").append(codec).append(", zero-copy ").append(zeroCopy).append(", read memory ")
                    .append(readBuffers == 0 ? "default" : readBuffers + " segments");
        }
        text.append('\n');
        if (largeGate()) {
            describeLargeGate(text);
        } else {
            for (int p = 0; p < producers(); p++) {
                text.append("  producer ").append(p).append(" (").append(partitionTypes[p]).append(") on env-")
                        .append(producerEnvironment[p]).append(": ").append(records[p]).append(" records, events after ")
                        .append(Arrays.toString(events[p])).append(" (negative: priority)\n");
            }
        }
        for (int c = 0; c < consumers(); c++) {
            text.append("  consumer ").append(c).append(" on env-").append(consumerEnvironment[c])
                    .append(": task events after ").append(Arrays.toString(taskEvents[c])).append('\n');
        }
        for (Fault fault : faults) {
            text.append("  fault ").append(fault).append('\n');
        }
        return text.toString();
    }

    /** A line per environment instead of one per producer: a large gate has thousands. */
    private void describeLargeGate(StringBuilder text) {
        for (int env = 0; env < environments; env++) {
            int count = 0;
            long sum = 0;
            long max = 0;
            for (int p = 0; p < producers(); p++) {
                if (producerEnvironment[p] == env) {
                    count++;
                    sum += records[p];
                    max = Math.max(max, records[p]);
                }
            }
            if (count > 0) {
                text.append("  ").append(count).append(" producers (").append(partitionTypes[0]).append(", one ")
                        .append("subpartition each) on env-").append(env).append(": ").append(sum)
                        .append(" records in all, at most ").append(max).append(" each, no events\n");
            }
        }
    }
}
