package io.sluice.flink;

import io.sluice.api.EventDeliveryListener;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.io.network.buffer.Buffer;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The output side of one aligned checkpoint barrier that may time out into an unaligned one
 * ({@code execution.checkpointing.aligned-checkpoint-timeout}): per subpartition, the future Flink's channel-state
 * writer waits on before it completes the checkpoint's output ({@link ChannelStateWriter#addOutputDataFuture}), with
 * the data the barrier overtook there. Completed empty when the barrier went out in its place (nothing was
 * overtaken), with the overtaken buffers when the barrier timed out and was moved ahead of them, and exceptionally
 * when the checkpoint was aborted, a newer barrier replaced this one, or the subpartition was released.
 *
 * <p>Threads: created, timed out and aborted on the task thread; Sluice tells deliveries on its notification thread
 * ({@link #delivered}); {@link #fail} from any thread. Each future completes once, whichever comes first; a later
 * completion does nothing, and overtaken buffers that arrive after another outcome are recycled here.
 */
final class TimeoutableBarrierOutput implements EventDeliveryListener {

    private final long checkpointId;
    private final String ownerName;
    private final List<CompletableFuture<List<Buffer>>> futures;

    /**
     * Registers one future per subpartition with {@code writer} (which then waits for them with the checkpoint).
     *
     * @param subpartitions each subpartition as Flink's channel state names it
     */
    TimeoutableBarrierOutput(long checkpointId, String ownerName, ChannelStateWriter writer,
                             ResultSubpartitionInfo[] subpartitions) {
        this.checkpointId = checkpointId;
        this.ownerName = ownerName;
        CompletableFuture<List<Buffer>>[] created = newFutures(subpartitions.length);
        for (int i = 0; i < subpartitions.length; i++) {
            writer.addOutputDataFuture(checkpointId, subpartitions[i], ChannelStateWriter.SEQUENCE_NUMBER_UNKNOWN,
                    created[i]);
        }
        this.futures = List.of(created);
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<List<Buffer>>[] newFutures(int count) {
        CompletableFuture<List<Buffer>>[] futures = new CompletableFuture[count];
        for (int i = 0; i < count; i++) {
            futures[i] = new CompletableFuture<>();
        }
        return futures;
    }

    long checkpointId() {
        return checkpointId;
    }

    /**
     * Sluice's report: sent in its place means nothing was overtaken; dropped means the data before it is lost to
     * this checkpoint; prioritized is settled by {@link #timedOut}, which made the replacement.
     */
    @Override
    public void delivered(int subpartition, Outcome outcome) {
        if (outcome == Outcome.SENT) {
            futures.get(subpartition).complete(List.of());
        } else if (outcome == Outcome.DROPPED) {
            futures.get(subpartition).completeExceptionally(new IOException("the aligned barrier of checkpoint "
                    + checkpointId + " of " + ownerName + " was dropped from subpartition " + subpartition
                    + " before it was sent: the subpartition was released"));
        }
    }

    /**
     * The barrier timed out: {@code overtaken.get(i)} is what it overtook in subpartition {@code i} when it was moved
     * ahead (empty where it had been sent already). Ownership of the buffers passes to the futures (Flink's writer
     * recycles them); those of a future settled already are recycled here.
     */
    void timedOut(List<List<Buffer>> overtaken) {
        for (int i = 0; i < futures.size(); i++) {
            List<Buffer> buffers = overtaken.get(i);
            if (!futures.get(i).complete(buffers)) {
                for (Buffer buffer : buffers) {
                    buffer.recycleBuffer();
                }
            }
        }
    }

    /** Fails every future not yet completed: the checkpoint was aborted or the partition released. Any thread. */
    void fail(Throwable cause) {
        for (CompletableFuture<List<Buffer>> future : futures) {
            future.completeExceptionally(cause);
        }
    }

    /** Whether every subpartition's future is completed. */
    boolean isSettled() {
        for (CompletableFuture<List<Buffer>> future : futures) {
            if (!future.isDone()) {
                return false;
            }
        }
        return true;
    }
}
