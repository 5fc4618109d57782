package io.sluice.tests.chaos;

import io.sluice.api.PartitionType;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the faults of a seed's blocking partitions: damage to a finished partition's files before anyone reads them
 * (a third of the seeds with blocking partitions), files that make the blocking I/O thread fail (one in fifteen),
 * and, when every partition is blocking, a reader that stops reading while the others read (a third). Stateless.
 */
final class BlockingFaults {

    private static final int AT_REST_ONE_IN = 3;
    private static final int IO_ERROR_ONE_IN = 15;
    private static final int STALL_ONE_IN = 3;
    /** The last one only with lz4: without compression there is no compressed block to damage. */
    private static final FaultKind[] DAMAGE = {FaultKind.CORRUPT_DATA_BIT, FaultKind.CORRUPT_INDEX_ENTRY,
            FaultKind.TRUNCATE_DATA, FaultKind.CORRUPT_COMPRESSED_BLOCK};

    private BlockingFaults() {
    }

    /**
     * @param random    the seed's second stream
     * @param types     each producer's partition type, at least one blocking
     * @param consumers consumers of the job
     * @param records   records of each producer
     * @param lz4       whether stored buffers may be compressed
     * @return the faults drawn, maybe none
     */
    static List<Fault> draw(SplittableRandom random, PartitionType[] types, int consumers, long[] records,
                            boolean lz4) {
        List<Integer> blocking = new ArrayList<>();
        for (int p = 0; p < types.length; p++) {
            if (types[p] == PartitionType.BLOCKING) {
                blocking.add(p);
            }
        }
        List<Fault> faults = new ArrayList<>();
        if (random.nextInt(AT_REST_ONE_IN) == 0) {
            FaultKind kind = DAMAGE[random.nextInt(lz4 ? DAMAGE.length : DAMAGE.length - 1)];
            int producer = blocking.get(random.nextInt(blocking.size()));
            faults.add(new Fault(kind, producer, -1, random.nextLong(Long.MAX_VALUE), random.nextInt(8), 0, false));
        }
        if (random.nextInt(IO_ERROR_ONE_IN) == 0) {
            int producer = blocking.get(random.nextInt(blocking.size()));
            faults.add(new Fault(FaultKind.BLOCKING_IO_ERROR, producer, -1, random.nextLong(Long.MAX_VALUE), 0, 0,
                    false));
        }
        if (blocking.size() == types.length && consumers > 1 && random.nextInt(STALL_ONE_IN) == 0) {
            long perConsumer = ChaosScenario.total(records) / consumers;
            long others = perConsumer * (consumers - 1);
            // A quarter past the end, as for the other faults: a stall that never comes, or one that lasts until
            // every other consumer has ended.
            long at = random.nextLong(1 + perConsumer + perConsumer / 4);
            int resumeAfter = (int) random.nextLong(1 + others + others / 4);
            faults.add(new Fault(FaultKind.READER_STALL, random.nextInt(consumers), -1, at, resumeAfter, 0,
                    random.nextInt(4) == 0));
        }
        return faults;
    }
}
