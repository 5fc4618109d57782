package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class StreamTrailerTest {

    @Test
    void countsOfEverySubpartition_readBack() {
        ByteBuffer trailer = StreamTrailer.encode(new long[] {5, 0, Long.MAX_VALUE});

        assertEquals(5, StreamTrailer.count(trailer, 0));
        assertEquals(0, StreamTrailer.count(trailer, 1));
        assertEquals(Long.MAX_VALUE, StreamTrailer.count(trailer, 2));
        assertEquals(0, trailer.position(), "reading leaves the event as it was");
    }

    @Test
    void trailerAtAnOffset_isReadFromItsPosition() {
        ByteBuffer framed = ByteBuffer.allocate(64);
        framed.position(10).put(StreamTrailer.encode(new long[] {3, 4})).flip().position(10);

        assertEquals(4, StreamTrailer.count(framed, 1));
    }

    @Test
    void subpartitionBeyondTheTrailer_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StreamTrailer.count(StreamTrailer.encode(new long[] {1, 2}), 2));

        assertEquals("the trailer counts 2 subpartitions in 24 bytes; subpartition 2 is not among them", e.getMessage());
    }

    @Test
    void otherEvents_areRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StreamTrailer.count(ByteBuffer.allocate(16), 0));

        assertEquals("an event of 16 bytes is not a sluice-bench trailer", e.getMessage());
    }
}
