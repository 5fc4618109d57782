package io.sluice.bench.run;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;

/**
 * What the consumers of a {@code serve} process confirmed: for each producer p and consumer c, whether consumer c
 * sent producer p a {@link ReadConfirmation} for subpartition c, and the records and bytes it confirmed. A partition
 * that leaves its environment proves nothing by itself (a consumer that dies or is cut off releases its subpartitions
 * too); only these confirmations say that every stream arrived intact. The producers send their trailer as a blocking
 * event, and a confirming consumer resumes its channel only after sending the confirmation on the same connection,
 * so a confirmation reaches its partition before the partition's end is sent and the partition released. Filled by
 * whichever thread delivers the writers' task events (a transport event loop), read by the main thread; the state is
 * guarded by this object (touched once per stream, never per record).
 */
final class ReadConfirmations {

    /** How many unconfirmed subpartitions a message names. */
    private static final int MISSING_NAMED = 8;

    private final int consumers;
    @GuardedBy("this")
    private final boolean[] confirmed; // index p * consumers + c
    @GuardedBy("this")
    private long records;
    @GuardedBy("this")
    private long bytes;
    @GuardedBy("this")
    private int count;

    /**
     * Listens to every writer's task events from now on.
     *
     * @param partitions partition p and its writer belong to producer p
     * @param consumers the subpartitions of each partition, one per consumer
     */
    ReadConfirmations(RunShuffle.Partitions partitions, int consumers) {
        this.consumers = consumers;
        this.confirmed = new boolean[partitions.ids().size() * consumers];
        for (int p = 0; p < partitions.ids().size(); p++) {
            int producer = p;
            partitions.writers().get(p).onTaskEvent(event -> accept(producer, ReadConfirmation.decode(event)));
        }
    }

    private synchronized void accept(int producer, ReadConfirmation.Confirmed confirmation) {
        if (confirmation == null || confirmation.consumer() < 0 || confirmation.consumer() >= consumers) {
            return; // not a confirmation of this run's shape: nothing it could prove
        }
        int at = producer * consumers + confirmation.consumer();
        if (!confirmed[at]) {
            confirmed[at] = true;
            records += confirmation.records();
            bytes += confirmation.bytes();
            count++;
        }
    }

    /** @return whether every consumer confirmed every producer's stream */
    synchronized boolean complete() {
        return count == confirmed.length;
    }

    /** @return the records the consumers confirmed so far */
    synchronized long records() {
        return records;
    }

    /** @return the bytes the consumers confirmed so far */
    synchronized long bytes() {
        return bytes;
    }

    /**
     * @return the subpartitions not confirmed yet, e.g. {@code "2 of 4 subpartitions were not confirmed read to their
     *     end (producer 1 subpartition 0, producer 1 subpartition 1)"}, naming at most a few of them
     */
    synchronized String unconfirmed() {
        List<String> missing = new ArrayList<>();
        int total = 0;
        for (int at = 0; at < confirmed.length; at++) {
            if (!confirmed[at]) {
                total++;
                if (missing.size() < MISSING_NAMED) {
                    missing.add("producer " + at / consumers + " subpartition " + at % consumers);
                }
            }
        }
        return total + " of " + confirmed.length + " subpartitions were not confirmed read to their end ("
                + String.join(", ", missing) + (total > missing.size() ? ", ..." : "") + ")";
    }
}
