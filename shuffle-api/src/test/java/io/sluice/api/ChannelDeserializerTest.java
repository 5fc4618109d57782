package io.sluice.api;

import static io.sluice.api.FramedStream.frame;
import static io.sluice.api.FramedStream.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The heap buffer of a channel's deserializer grows with the bytes of a record that spans buffers, never to a length
 * declared ahead of them, and a heap that cannot hold a record's bytes is reported as the API's exception.
 */
class ChannelDeserializerTest {

    private final ScriptedInputGate gate = new ScriptedInputGate(1);

    @Test
    void declaredLengthOfAGigabyte_costsOnlyTheBytesThatArrived() throws Exception {
        ChannelDeserializer deserializer = new ChannelDeserializer(0, gate);
        ByteBuffer source = ByteBuffer.wrap(new byte[] {0x40, 0, 0, 0, 1, 2, 3, 4, 5});

        assertNull(deserializer.nextRecord(source, source.duplicate()));

        assertTrue(deserializer.spillCapacity() <= 4096, "heap buffer of " + deserializer.spillCapacity()
                + " bytes for 5 bytes of a record that declares 1 GiB");
        assertEquals("channel 0 ended inside a record: 5 of its 1073741824 bytes arrived",
                deserializer.describePartialRecord());
    }

    @Test
    void recordSpanningManyBuffers_growsTheBufferByDoubling_atMostTwiceWhatArrived_andArrivesIntact()
            throws Exception {
        byte[] payload = record(1_000_000, 5);
        byte[] stream = frame(List.of(payload));
        ChannelDeserializer deserializer = new ChannelDeserializer(0, gate);
        ByteBuffer record = null;
        int arrived = 0;
        for (int start = 0; start < stream.length; start += 1000) {
            int end = Math.min(stream.length, start + 1000);
            ByteBuffer source = ByteBuffer.wrap(stream, start, end - start).slice();
            record = deserializer.nextRecord(source, source.duplicate());
            arrived = end - RecordFraming.LENGTH_BYTES;
            assertTrue(deserializer.spillCapacity() <= Math.max(4096, 2 * arrived),
                    deserializer.spillCapacity() + " bytes held after " + arrived + " arrived");
        }

        assertNotNull(record);
        byte[] bytes = new byte[record.remaining()];
        record.get(bytes);
        assertArrayEquals(payload, bytes);
        assertEquals(payload.length, deserializer.spillCapacity(), "never beyond the declared length");
    }

    @Test
    void heapWithoutRoomForTheRecordsBytes_failsWithShuffleException_namingTheChannelAndTheLength() {
        ChannelDeserializer deserializer = new ChannelDeserializer(0, gate, capacity -> {
            throw new OutOfMemoryError("Java heap space");
        });
        ByteBuffer source = ByteBuffer.wrap(new byte[] {0x40, 0, 0, 0, 1, 2, 3, 4, 5});

        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> deserializer.nextRecord(source, source.duplicate()));

        assertEquals("channel 0 cannot reassemble a record of 1073741824 bytes: no heap for 4096 bytes after 0 of "
                + "them arrived (Java heap space)", failure.getMessage());
        assertInstanceOf(OutOfMemoryError.class, failure.getCause());
    }
}
