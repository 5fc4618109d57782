package io.sluice.flink;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.BufferRecycler;
import org.apache.flink.runtime.io.network.buffer.FreeingBufferRecycler;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;

import java.nio.ByteBuffer;

/**
 * Hands Sluice's data buffers to Flink as Flink {@link Buffer}s without copying: the Flink buffer wraps the Sluice
 * buffer's off-heap bytes, and recycling it (Flink's record deserializer does, once it has read every byte) recycles
 * the Sluice buffer. Recovered input ({@link RecoveredInput.Element}) is Flink's own buffer and is handed back as it
 * is. Any other heap buffer (never produced by Sluice's pools; only a defensive path) is copied. Stateless;
 * any thread.
 */
final class SluiceBuffers {

    private SluiceBuffers() {
    }

    /**
     * Wraps a Sluice data buffer. Ownership of {@code source} passes to the returned buffer: Flink recycles it once,
     * which recycles {@code source}.
     */
    static Buffer wrap(io.sluice.api.BufferOrEvent source) {
        if (source instanceof RecoveredInput.Element recovered) {
            return recovered.flinkBuffer();
        }
        ByteBuffer data = source.data();
        int size = data.remaining();
        if (data.isDirect()) {
            MemorySegment segment = MemorySegmentFactory.wrapOffHeapMemory(data.slice());
            return new NetworkBuffer(segment, new Recycler(source), Buffer.DataType.DATA_BUFFER, size);
        }
        byte[] copy = new byte[size];
        data.duplicate().get(copy);
        source.recycle();
        return new NetworkBuffer(MemorySegmentFactory.wrap(copy), FreeingBufferRecycler.INSTANCE,
                Buffer.DataType.DATA_BUFFER, size);
    }

    /** Recycles the Sluice buffer behind one Flink buffer; called once, by whichever thread recycles it. */
    private static final class Recycler implements BufferRecycler {

        private final io.sluice.api.BufferOrEvent source;

        Recycler(io.sluice.api.BufferOrEvent source) {
            this.source = source;
        }

        @Override
        public void recycle(MemorySegment memorySegment) {
            source.recycle();
        }
    }
}
