package io.sluice.netty.compression;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The {@code lz4} codec of {@code shuffle.compression.codec} for data buffers: compresses a buffer's bytes when
 * that makes them smaller, and restores them. A compressed buffer is the raw LZ4 block, with no header: whoever
 * stores or sends it carries a "compressed" flag beside it (the BufferResponse header on the wire, the buffer
 * header on disk), and the decompressed size is at most one segment.
 *
 * <p>Stateless apart from the thread-safe LZ4 instances: any thread.
 */
public final class BufferCompressor {

    /** The codec name in {@code shuffle.compression.codec}. */
    public static final String LZ4 = "lz4";

    private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();

    private final LZ4Compressor compressor = FACTORY.fastCompressor();
    private final LZ4SafeDecompressor decompressor = FACTORY.safeDecompressor();

    /** The largest compressed size of {@code length} bytes: the size a target of {@link #compress} needs. */
    public int maxCompressedLength(int length) {
        return compressor.maxCompressedLength(length);
    }

    /**
     * Compresses {@code length} bytes of {@code source} at {@code sourceOffset} into {@code target} at
     * {@code targetOffset} (absolute indices; positions and limits are not touched).
     *
     * @return the compressed length, or -1 when compressing would not make the bytes smaller (send them as they are)
     */
    public int compress(ByteBuffer source, int sourceOffset, int length, ByteBuffer target, int targetOffset) {
        if (length == 0) {
            return -1;
        }
        int room = Math.min(target.capacity() - targetOffset, length - 1);
        if (room <= 0) {
            return -1;
        }
        try {
            return compressor.compress(source, sourceOffset, length, target, targetOffset, room);
        } catch (LZ4Exception e) {
            // Did not fit in fewer bytes than the original: incompressible.
            return -1;
        }
    }

    /**
     * Restores {@code length} compressed bytes of {@code source} at {@code sourceOffset} into {@code target} at
     * {@code targetOffset}, writing at most {@code maxLength} bytes.
     *
     * @return the decompressed length
     * @throws IOException naming {@code what} when the bytes are not a valid LZ4 block of at most maxLength bytes
     */
    public int decompress(ByteBuffer source, int sourceOffset, int length, ByteBuffer target, int targetOffset,
                          int maxLength, String what) throws IOException {
        try {
            return decompressor.decompress(source, sourceOffset, length, target, targetOffset, maxLength);
        } catch (LZ4Exception e) {
            throw new IOException("cannot decompress " + what + ": " + length + " bytes are not an LZ4 block of at "
                    + "most " + maxLength + " bytes (" + e.getMessage() + ")", e);
        }
    }
}
