package io.sluice.netty.transport;

import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.SharedFileChannel;
import io.sluice.netty.partition.StoredChecksum;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Runs of stored buffers as a blocking partition's data file holds them (see {@link FileSpan}), written to a file in
 * a test's directory and sent from it as the server does. Each buffer's data is {@link TestBuffers#pattern} of its
 * sequence number. Used by one test thread.
 */
final class StoredRuns {

    /** Where a run starts in its file: inside it, as a region's does. */
    static final int FILE_POSITION = 5;

    private final Path directory;
    private SharedFileChannel lastFile;

    StoredRuns(Path directory) {
        this.directory = directory;
    }

    /** The open handle of the last run's file; its span's reference is released once the run is written. */
    SharedFileChannel lastFile() {
        return lastFile;
    }

    /** A run of buffers of the given sizes with their checksums. */
    StoredBuffersResponse run(InputChannelId receiver, int firstSequenceNumber, int backlog, int... sizes)
            throws IOException {
        return run(receiver, firstSequenceNumber, backlog, true, -1, sizes);
    }

    /**
     * A run of buffers of the given sizes.
     *
     * @param checksummed  whether the buffers carry checksums (a partition written without them does not)
     * @param damagedByte  an offset in the data file whose byte is flipped after the checksums were computed, or -1
     */
    StoredBuffersResponse run(InputChannelId receiver, int firstSequenceNumber, int backlog, boolean checksummed,
                              long damagedByte, int... sizes) throws IOException {
        int stored = 0;
        for (int size : sizes) {
            stored += FileSpan.STORED_HEADER_BYTES + size;
        }
        ByteBuffer bytes = ByteBuffer.allocate(FILE_POSITION + stored);
        bytes.position(FILE_POSITION);
        long dataBytes = 0;
        StoredChecksum checksum = new StoredChecksum();
        for (int i = 0; i < sizes.length; i++) {
            int offset = bytes.position();
            ByteBuffer data = ByteBuffer.wrap(TestBuffers.pattern(sizes[i], firstSequenceNumber + i));
            bytes.putInt(sizes[i]).put(FileSpan.KIND_DATA).put(checksummed ? FileSpan.FLAG_CHECKSUM : 0)
                    .putShort((short) 0);
            bytes.putInt(checksummed ? checksum.ofBuffer(offset, bytes.getLong(offset), data) : 0);
            bytes.put(data);
            dataBytes += sizes[i];
        }
        if (damagedByte >= 0) {
            int at = Math.toIntExact(damagedByte);
            bytes.put(at, (byte) (bytes.get(at) ^ 0x10));
        }
        Path path = Files.write(directory.resolve("run-" + firstSequenceNumber + "-" + receiver), bytes.array());
        lastFile = new SharedFileChannel(path, FileChannel.open(path, StandardOpenOption.READ));
        FileSpan span = new FileSpan(lastFile.retain(), FILE_POSITION, stored, sizes.length, dataBytes, false,
                backlog, false, firstSequenceNumber);
        lastFile.release(); // the span's reference is the only one left, as with a reader released mid-send
        return StoredBuffersResponse.of(span, new SharedFileRegion(span.file(), span.position(), span.length()),
                receiver);
    }

    /** Where the {@code index}-th buffer of a run of {@code sizes} starts in its file (its stored header). */
    static long offsetOf(int index, int... sizes) {
        long at = FILE_POSITION;
        for (int i = 0; i < index; i++) {
            at += FileSpan.STORED_HEADER_BYTES + sizes[i];
        }
        return at;
    }
}
