package io.sluice.bench.options;

import io.sluice.api.ResultPartitionId;
import java.util.ArrayList;
import java.util.List;

/**
 * What a consumer needs to read a serve process's partitions, printed by {@code serve} as the
 * arguments of {@code consume}. Immutable value.
 *
 * @param host the host of the producer's data address
 * @param port its data port
 * @param producerId the producer environment's resource id
 * @param partitions the ids of its partitions
 * @param subpartitions subpartitions of each partition (one per consumer)
 */
public record ServeTicket(String host, int port, String producerId, List<ResultPartitionId> partitions,
                          int subpartitions) {

    /**
     * @param segmentSize the producer's segment size as an option value, so the consumer's buffers match
     * @param workload what the producer sends, so the consumer can show progress
     * @return the arguments of {@code sluice-bench}, starting with {@code consume}, space-separated
     */
    public String toCommandLine(String segmentSize, Workload workload) {
        List<String> args = new ArrayList<>(List.of("consume",
                Flags.CONNECT, host + ":" + port,
                Flags.PRODUCER_ID, producerId,
                Flags.PARTITIONS, joinIds(),
                Flags.SUBPARTITIONS, String.valueOf(subpartitions),
                Flags.SEGMENT_SIZE, segmentSize));
        if (workload.timed()) {
            args.add(Flags.DURATION);
            args.add(workload.duration().toMillis() + "ms");
        } else {
            args.add(Flags.BYTES);
            args.add(String.valueOf(workload.totalBytes()));
        }
        return String.join(" ", args);
    }

    private String joinIds() {
        StringBuilder ids = new StringBuilder();
        for (ResultPartitionId id : partitions) {
            if (ids.length() > 0) {
                ids.append(',');
            }
            ids.append(id);
        }
        return ids.toString();
    }
}
