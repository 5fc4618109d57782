package io.sluice.tests.chaos;

import io.sluice.api.PartitionType;
import io.sluice.tests.support.RecordSizes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the job of a large-gate seed: one consumer, in an environment of its own, reads the one-subpartition
 * pipelined partitions of 1,000 to 4,000 producers in one to four other environments (at most 1,000 partitions in
 * one: every partition's pool is redistributed over all pools of its environment at creation and at release, so an
 * environment's set-up and tear-down time grow with the square of its partitions), over connections spread across 1 to 16
 * connection indexes. Each producer emits 15 to 100 small records (24 to 256 bytes) into 4 KiB segments, 1 to 4
 * buffers, so most channels have a backlog beyond their 1 or 2 exclusive buffers and wait for the gate's few
 * floating buffers at once, which is how a gate of thousands of remote channels differs from an ordinary one. Half
 * of these seeds run clean; the others close the gate, the consumer's environment or a connection at a count.
 * Stateless.
 */
final class LargeGateScenario {

    /** More producers than this make a large gate (an ordinary job has at most 4). */
    static final int MAX_ORDINARY_PRODUCERS = 4;
    private static final int MIN_CHANNELS = 1_000;
    private static final int MAX_CHANNELS = 4_000;
    private static final int MAX_PARTITIONS_PER_ENVIRONMENT = 1_000;
    private static final int MIN_MOST_RECORDS = 30;
    private static final int MAX_RECORDS = 100;
    private static final int SEGMENT_SIZE = 4 << 10;
    private static final RecordSizes SIZES = RecordSizes.parse("24..256");
    private static final FaultKind[] FAULTS = {FaultKind.GATE_CLOSE, FaultKind.CONSUMER_ENVIRONMENT_CLOSE,
            FaultKind.CONNECTION_CLOSE, FaultKind.CONNECTION_RESET};

    private LargeGateScenario() {
    }

    /**
     * @param seed   the seed
     * @param random the seed's first stream
     * @return the large-gate job it stands for
     */
    static ChaosScenario draw(long seed, SplittableRandom random) {
        String transport = random.nextBoolean() ? "local" : "nio";
        int channels = MIN_CHANNELS + random.nextInt(MAX_CHANNELS - MIN_CHANNELS + 1);
        int producerEnvironments = (channels + MAX_PARTITIONS_PER_ENVIRONMENT - 1) / MAX_PARTITIONS_PER_ENVIRONMENT;
        int environments = producerEnvironments + 1;
        int consumerEnvironment = producerEnvironments;
        int buffersPerChannel = 1 + random.nextInt(2);
        int floatingBuffers = 1 + random.nextInt(8);
        int maxBuffersPerSubpartition = 2 + random.nextInt(9);
        Duration flushInterval = ChaosScenario.FLUSH_INTERVALS[random.nextInt(ChaosScenario.FLUSH_INTERVALS.length)];
        int connectionIndexes = 1 << random.nextInt(5);
        int most = MIN_MOST_RECORDS + random.nextInt(MAX_RECORDS - MIN_MOST_RECORDS + 1);
        int[] producerEnvironment = new int[channels];
        long[] records = new long[channels];
        long[][] events = new long[channels][];
        int[] partitions = new int[environments];
        for (int p = 0; p < channels; p++) {
            producerEnvironment[p] = p % producerEnvironments;
            partitions[producerEnvironment[p]]++;
            records[p] = most / 2 + random.nextInt(most - most / 2 + 1);
            events[p] = new long[0];
        }
        long total = ChaosScenario.total(records);
        long[][] taskEvents = {random.nextInt(3) == 0 ? new long[] {random.nextLong(1 + total / 2)} : new long[0]};
        // A partition needs 2 buffers (its subpartition + 1); a little more lets producers run ahead of the gate.
        int perPartition = 2 + random.nextInt(3);
        int[] segments = new int[environments];
        for (int env = 0; env < producerEnvironments; env++) {
            segments[env] = partitions[env] * perPartition + 8 + random.nextInt(32);
        }
        segments[consumerEnvironment] = channels * buffersPerChannel + floatingBuffers + 8 + random.nextInt(32);
        PartitionType[] types = new PartitionType[channels];
        Arrays.fill(types, PartitionType.PIPELINED_BOUNDED);
        return new ChaosScenario(seed, transport, environments, SEGMENT_SIZE, segments, buffersPerChannel,
                floatingBuffers, maxBuffersPerSubpartition, flushInterval, SIZES, producerEnvironment,
                new int[] {consumerEnvironment}, records, events, taskEvents, types, "none", "auto", 0,
                connectionIndexes, faults(random, producerEnvironments, consumerEnvironment, total));
    }

    private static List<Fault> faults(SplittableRandom random, int producerEnvironments, int consumerEnvironment,
                                      long total) {
        List<Fault> faults = new ArrayList<>();
        if (random.nextBoolean()) {
            return faults;
        }
        FaultKind kind = FAULTS[random.nextInt(FAULTS.length)];
        switch (kind) {
            case GATE_CLOSE, CONSUMER_ENVIRONMENT_CLOSE -> faults.add(new Fault(kind, 0, -1,
                    random.nextLong(1 + total + total / 4), 0, 0, random.nextBoolean()));
            default -> faults.add(new Fault(kind, consumerEnvironment, random.nextInt(producerEnvironments),
                    random.nextLong(1 + total / 8), 0, 0, false));
        }
        return faults;
    }
}
