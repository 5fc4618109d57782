package io.sluice.bench.run;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleEnvironment;
import java.util.ArrayList;
import java.util.List;

/**
 * What the consumers of a {@code serve} process confirmed: for each producer p and consumer c, whether consumer c
 * sent producer p a {@link ReadConfirmation}, and the records and bytes it confirmed. A partition that leaves its
 * environment proves nothing by itself (a consumer that dies releases it too); only these confirmations say that
 * every stream arrived intact. Filled by whichever thread delivers the writers' task events, waited on by the
 * producer threads, read by the main thread; the state is guarded by this object (touched once per stream, never
 * per record).
 */
final class ReadConfirmations {

    /** How often a producer waiting for its confirmations looks whether its partition is still there. */
    private static final long POLL_MILLIS = 20;
    /** How many unconfirmed streams a message names. */
    private static final int MISSING_NAMED = 8;

    private final ShuffleEnvironment environment;
    private final List<ResultPartitionId> partitions;
    private final int consumers;
    private final boolean[] confirmed; // guarded by this; index p * consumers + c
    private long records; // guarded by this
    private long bytes; // guarded by this
    private int count; // guarded by this

    /**
     * Listens to every writer's task events from now on.
     *
     * @param environment the environment the partitions live in
     * @param partitions partition p and its writer belong to producer p
     * @param consumers the subpartitions of each partition, one per consumer
     */
    ReadConfirmations(ShuffleEnvironment environment, RunShuffle.Partitions partitions, int consumers) {
        this.environment = environment;
        this.partitions = partitions.ids();
        this.consumers = consumers;
        this.confirmed = new boolean[this.partitions.size() * consumers];
        for (int p = 0; p < this.partitions.size(); p++) {
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
            notifyAll();
        }
    }

    /**
     * Waits until every consumer confirmed producer {@code producer}'s stream. The producer calls this after its
     * trailer and before {@code finish()}: a confirmation that arrived after the partition was released would be
     * dropped, so the partition must outlive it.
     *
     * @param producer the producer's number
     * @throws IllegalStateException when the partition was released first (its consumers went away)
     * @throws InterruptedException when the producer's thread is interrupted
     */
    void awaitConsumersOf(int producer) throws InterruptedException {
        ResultPartitionId partition = partitions.get(producer);
        synchronized (this) {
            while (!confirmedAll(producer)) {
                if (!environment.partitionsOccupyingLocalResources().contains(partition)) {
                    throw new IllegalStateException("partition " + partition + " of producer " + producer + " was "
                            + "released before its consumers confirmed reading it; " + unconfirmed());
                }
                wait(POLL_MILLIS);
            }
        }
    }

    private boolean confirmedAll(int producer) {
        assert Thread.holdsLock(this);
        for (int c = 0; c < consumers; c++) {
            if (!confirmed[producer * consumers + c]) {
                return false;
            }
        }
        return true;
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

    /** @return the streams not confirmed yet, as "producer p -> consumer c", at most a few of them */
    synchronized String unconfirmed() {
        List<String> missing = new ArrayList<>();
        int total = 0;
        for (int at = 0; at < confirmed.length; at++) {
            if (!confirmed[at]) {
                total++;
                if (missing.size() < MISSING_NAMED) {
                    missing.add("producer " + at / consumers + " -> consumer " + at % consumers);
                }
            }
        }
        return total + " of " + confirmed.length + " streams not confirmed (" + String.join(", ", missing)
                + (total > missing.size() ? ", ..." : "") + ")";
    }
}
