package io.sluice.netty.transport;

import io.sluice.netty.gate.InputChannelId;

/**
 * What {@link ClientMessageDecoder} hands on in place of a stored buffer of a {@link StoredBuffersResponse} whose
 * bytes fail their checksum: the buffer itself was recycled, and {@link CreditBasedClientHandler} fails the receiving
 * channel with a {@code CorruptDataException} naming its partition and subpartition, the data file and the offset.
 * Only the decoder makes these; they never travel. Immutable; any thread.
 *
 * @param receiverId       the channel the buffer was for
 * @param sequenceNumber   the buffer's place in the channel's stream
 * @param offset           where the buffer's stored header starts in the producer's data file
 * @param length           its stored length
 * @param storedChecksum   the checksum its header carries
 * @param computedChecksum the checksum of the bytes that arrived
 */
record CorruptStoredBuffer(InputChannelId receiverId, int sequenceNumber, long offset, int length,
                           int storedChecksum, int computedChecksum) {

    /** What was wrong, for a message that names the partition, subpartition and file around it. */
    String describe() {
        return String.format("the stored buffer there (%d bytes, sequence number %d), sent from the file by sendfile,"
                + " fails its CRC32C check: stored 0x%08x, computed 0x%08x over what arrived", length, sequenceNumber,
                storedChecksum, computedChecksum);
    }
}
