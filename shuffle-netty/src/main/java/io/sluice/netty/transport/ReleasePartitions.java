package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;

import java.util.List;
import java.util.Objects;

/**
 * Client to server, sent by a {@link io.sluice.api.ShuffleMaster} (never by a consumer channel): release these
 * partitions of the server's environment, as {@code releasePartitionsLocally} would there (a blocking partition's
 * files are deleted once its last reader has gone; readers still reading fail). Ids the server does not hold are
 * ignored. Body: count (4), then count partition ids (16 each). Added in protocol version 3. Immutable; any thread.
 *
 * <p>Who may send it: anyone who may open a connection to the data port. Under TLS that is only a peer whose
 * certificate chains to the environment's truststore (mutual authentication), the same peers that may read the
 * partitions; without TLS, anyone who can reach the port, exactly as for reading them.
 *
 * @param partitionIds one to {@link #MAX_IDS} partitions to release
 */
public record ReleasePartitions(List<ResultPartitionId> partitionIds) implements NettyMessage {

    static final byte ID = 8;

    static final int COUNT_OFFSET = 0;
    static final int COUNT_SIZE = Integer.BYTES;
    /** Where the ids start; each is {@link #PARTITION_ID_SIZE} bytes. */
    static final int PARTITION_IDS_OFFSET = COUNT_OFFSET + COUNT_SIZE;
    static final int PARTITION_ID_SIZE = WireFields.ID_LENGTH;

    /**
     * The most ids one message carries, so that it fits the server's frame limit
     * ({@link ServerMessageDecoder#maxClientFrameLength()}); more are sent as several messages.
     */
    public static final int MAX_IDS = (ServerMessageDecoder.maxClientFrameLength() - Frame.HEADER_LENGTH
            - PARTITION_IDS_OFFSET) / PARTITION_ID_SIZE;

    /** Checks and copies the ids. */
    public ReleasePartitions {
        Objects.requireNonNull(partitionIds, "partitionIds");
        if (partitionIds.isEmpty() || partitionIds.size() > MAX_IDS) {
            throw new IllegalArgumentException("a ReleasePartitions message carries 1 to " + MAX_IDS
                    + " partition ids, got " + partitionIds.size());
        }
        partitionIds = List.copyOf(partitionIds);
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int bodyLength() {
        return PARTITION_IDS_OFFSET + partitionIds.size() * PARTITION_ID_SIZE;
    }

    @Override
    public void writeBody(ByteBuf out) {
        out.writeInt(partitionIds.size());
        for (ResultPartitionId id : partitionIds) {
            WireFields.writeId(out, id);
        }
    }

    static ReleasePartitions readBody(ByteBuf in) {
        int count = in.readInt();
        if (count < 1 || count > MAX_IDS || (long) count * PARTITION_ID_SIZE != in.readableBytes()) {
            throw new CorruptFrameException("bad ReleasePartitions count " + count + ": " + in.readableBytes()
                    + " bytes of ids follow, " + PARTITION_ID_SIZE + " per id, at most " + MAX_IDS + " ids");
        }
        ResultPartitionId[] ids = new ResultPartitionId[count];
        for (int i = 0; i < count; i++) {
            ids[i] = WireFields.readResultPartitionId(in);
        }
        return new ReleasePartitions(List.of(ids));
    }

    @Override
    public String toString() {
        return "ReleasePartitions" + partitionIds;
    }
}
