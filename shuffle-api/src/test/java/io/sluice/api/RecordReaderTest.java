package io.sluice.api;

import static io.sluice.api.FramedStream.cut;
import static io.sluice.api.FramedStream.cutEvery;
import static io.sluice.api.FramedStream.frame;
import static io.sluice.api.FramedStream.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.BackgroundTask;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class RecordReaderTest {

    @Test
    void emptyRecords_areReturnedWithZeroBytes() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, List.of(frame(List.of(new byte[0], new byte[0], new byte[0])))).finish();

        List<byte[]> records = readAllRecords(new RecordReader(gate));

        assertEquals(3, records.size());
        for (byte[] record : records) {
            assertEquals(0, record.length);
        }
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void recordExactlyFillingBuffer_isAViewWithoutCopy_recycledAtNextCall() throws Exception {
        byte[] payload = record(100, 1);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, List.of(frame(List.of(payload)))).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent first = reader.next();

        TestBuffer buffer = gate.handedOut().get(0);
        assertSame(buffer.array(), first.data().array(), "a record whole in one buffer is not copied");
        assertArrayEquals(payload, bytesOf(first));
        assertEquals(0, buffer.recycleCount(), "the record still points into the buffer");
        assertNull(reader.next());
        assertEquals(1, buffer.recycleCount());
    }

    @Test
    void severalRecordsInOneBuffer_areViews_bufferRecycledOnceAfterTheLast() throws Exception {
        List<byte[]> payloads = List.of(record(10, 1), record(0, 2), record(30, 3));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, List.of(frame(payloads))).finish();
        RecordReader reader = new RecordReader(gate);

        for (byte[] payload : payloads) {
            RecordOrEvent next = reader.next();
            assertFalse(next.isEvent());
            assertEquals(0, next.channelIndex());
            assertArrayEquals(payload, bytesOf(next));
            assertEquals(0, gate.handedOut().get(0).recycleCount());
        }
        assertNull(reader.next());
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void lengthStraddlingTwoBuffers_atEveryCutPoint_isReassembled() throws Exception {
        byte[] first = record(7, 1);
        byte[] second = record(9, 2);
        byte[] stream = frame(List.of(first, second));
        int secondLengthStart = RecordFraming.LENGTH_BYTES + first.length;
        for (int cutInLength = 1; cutInLength < RecordFraming.LENGTH_BYTES; cutInLength++) {
            ScriptedInputGate gate = new ScriptedInputGate(1);
            gate.addBuffers(0, cut(stream, secondLengthStart + cutInLength)).finish();

            List<byte[]> records = readAllRecords(new RecordReader(gate));

            assertEquals(2, records.size(), "cut " + cutInLength + " bytes into the length");
            assertArrayEquals(first, records.get(0));
            assertArrayEquals(second, records.get(1));
            assertEveryBufferRecycledOnce(gate);
        }
    }

    @Test
    void bufferEndingRightAfterTheLength_bodyInNextBuffer_isAViewOfTheNextBuffer() throws Exception {
        byte[] payload = record(50, 4);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, cut(frame(List.of(payload)), RecordFraming.LENGTH_BYTES)).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent next = reader.next();

        List<TestBuffer> buffers = gate.handedOut();
        assertEquals(1, buffers.get(0).recycleCount(), "the length-only buffer is consumed");
        assertSame(buffers.get(1).array(), next.data().array());
        assertArrayEquals(payload, bytesOf(next));
    }

    @Test
    void recordSpanningBuffers_isCopied_andEachConsumedBufferRecycledBeforeNextReturns() throws Exception {
        byte[] payload = record(10, 5);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        // [len, 3 bytes] [7 bytes]: both buffers are consumed once the record is complete
        gate.addBuffers(0, cut(frame(List.of(payload)), RecordFraming.LENGTH_BYTES + 3)).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent next = reader.next();

        assertArrayEquals(payload, bytesOf(next));
        for (TestBuffer buffer : gate.handedOut()) {
            assertEquals(1, buffer.recycleCount(), buffer + " is consumed and must be recycled at once");
            assertNotSame(buffer.array(), next.data().array());
        }
    }

    @Test
    void recordsOfSeveralMegabytes_spanningManyBuffers_arriveIntact() throws Exception {
        List<byte[]> payloads = List.of(record(3 << 20, 1), record(5, 2), record((5 << 20) + 17, 3));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, cutEvery(frame(payloads), 32 << 10)).finish();

        List<byte[]> records = readAllRecords(new RecordReader(gate));

        assertEquals(payloads.size(), records.size());
        for (int i = 0; i < payloads.size(); i++) {
            assertArrayEquals(payloads.get(i), records.get(i), "record " + i);
        }
        assertTrue(gate.handedOut().size() > 250, "8 MiB in 32 KiB buffers");
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void eventsBetweenRecords_arePassedThroughInOrder_andRecycledAtNextCall() throws Exception {
        byte[] a = record(20, 1);
        byte[] b = record(20, 2);
        byte[] eventPayload = {42, 43};
        List<byte[]> halves = cut(frame(List.of(a, b)), 10);
        ScriptedInputGate gate = new ScriptedInputGate(2);
        TestBuffer event = TestBuffer.event(1, eventPayload);
        gate.add(TestBuffer.buffer(0, halves.get(0)), event, TestBuffer.buffer(0, halves.get(1))).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent first = reader.next();
        assertTrue(first.isEvent(), "the event arrived before record a was complete");
        assertEquals(1, first.channelIndex());
        assertArrayEquals(eventPayload, bytesOf(first));
        assertEquals(0, event.recycleCount());

        assertArrayEquals(a, bytesOf(reader.next()));
        assertEquals(1, event.recycleCount());
        assertArrayEquals(b, bytesOf(reader.next()));
        assertNull(reader.next());
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void interleavedChannels_eachKeepTheirOwnPartialRecord() throws Exception {
        byte[] onChannel0 = record(300, 1);
        byte[] onChannel1 = record(200, 2);
        List<byte[]> stream0 = cutEvery(frame(List.of(onChannel0, onChannel0)), 64);
        List<byte[]> stream1 = cutEvery(frame(List.of(onChannel1)), 3);
        ScriptedInputGate gate = new ScriptedInputGate(2);
        for (int i = 0; i < Math.max(stream0.size(), stream1.size()); i++) {
            if (i < stream0.size()) {
                gate.add(TestBuffer.buffer(0, stream0.get(i)));
            }
            if (i < stream1.size()) {
                gate.add(TestBuffer.buffer(1, stream1.get(i)));
            }
        }
        gate.finish();
        RecordReader reader = new RecordReader(gate);

        List<byte[]> channel0 = new ArrayList<>();
        List<byte[]> channel1 = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            (next.channelIndex() == 0 ? channel0 : channel1).add(bytesOf(next));
        }

        assertEquals(2, channel0.size());
        assertArrayEquals(onChannel0, channel0.get(0));
        assertArrayEquals(onChannel0, channel0.get(1));
        assertEquals(1, channel1.size());
        assertArrayEquals(onChannel1, channel1.get(0));
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void randomRecordsCutAtRandomPointsOnThreeChannels_arriveInOrder_everyBufferRecycledOnce() throws Exception {
        Random random = new Random(20240611);
        int channels = 3;
        List<List<byte[]>> sent = new ArrayList<>();
        List<List<byte[]>> buffers = new ArrayList<>();
        for (int channel = 0; channel < channels; channel++) {
            List<byte[]> records = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int length = random.nextInt(10) == 0 ? random.nextInt(100_000) : random.nextInt(40);
                records.add(record(length, random.nextLong()));
            }
            sent.add(records);
            byte[] stream = frame(records);
            List<byte[]> pieces = new ArrayList<>();
            int start = 0;
            while (start < stream.length) {
                int end = Math.min(stream.length, start + random.nextInt(5000));
                pieces.add(java.util.Arrays.copyOfRange(stream, start, end));
                start = end;
            }
            buffers.add(pieces);
        }
        ScriptedInputGate gate = new ScriptedInputGate(channels);
        int[] nextPiece = new int[channels];
        int remaining = buffers.stream().mapToInt(List::size).sum();
        while (remaining > 0) {
            int channel = random.nextInt(channels);
            if (nextPiece[channel] < buffers.get(channel).size()) {
                gate.add(TestBuffer.buffer(channel, buffers.get(channel).get(nextPiece[channel]++)));
                remaining--;
            }
        }
        gate.finish();
        RecordReader reader = new RecordReader(gate);

        List<List<byte[]>> received = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            received.get(next.channelIndex()).add(bytesOf(next));
        }

        for (int channel = 0; channel < channels; channel++) {
            assertEquals(sent.get(channel).size(), received.get(channel).size(), "records of channel " + channel);
            for (int i = 0; i < sent.get(channel).size(); i++) {
                assertArrayEquals(sent.get(channel).get(i), received.get(channel).get(i),
                        "record " + i + " of channel " + channel);
            }
        }
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void emptyBuffers_areRecycledAndSkipped() throws Exception {
        byte[] payload = record(8, 1);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(TestBuffer.buffer(0, new byte[0]));
        gate.addBuffers(0, List.of(frame(List.of(payload))));
        gate.add(TestBuffer.buffer(0, new byte[0])).finish();

        List<byte[]> records = readAllRecords(new RecordReader(gate));

        assertEquals(1, records.size());
        assertArrayEquals(payload, records.get(0));
        assertEquals(3, gate.handedOut().size());
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void theSameHolderIsReturnedForEveryRecord() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, List.of(frame(List.of(record(1, 1), record(2, 2))))).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent first = reader.next();
        RecordOrEvent second = reader.next();

        assertSame(first, second, "no allocation per record");
        assertEquals(2, second.data().remaining());
    }

    @Test
    void channelEndingInsideARecord_failsNamingTheChannel() throws Exception {
        byte[] stream = frame(List.of(record(10, 1)));
        List<byte[]> pieces = cut(stream, stream.length - 4);
        ScriptedInputGate truncated = new ScriptedInputGate(3);
        truncated.add(TestBuffer.buffer(2, pieces.get(0))).finish();
        RecordReader reader = new RecordReader(truncated);

        IOException failure = assertThrows(IOException.class, reader::next);

        assertEquals("Input gate finished, but channel 2 ended inside a record: 6 of its 10 bytes arrived",
                failure.getMessage());
        assertEveryBufferRecycledOnce(truncated);
    }

    @Test
    void channelEndingInsideALength_failsNamingTheChannel() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(2);
        gate.add(TestBuffer.buffer(1, new byte[] {0, 0})).finish();
        RecordReader reader = new RecordReader(gate);

        IOException failure = assertThrows(IOException.class, reader::next);

        assertTrue(failure.getMessage().contains("channel 1 ended inside a record length: 2 of 4 bytes"),
                failure.getMessage());
    }

    /** How the reader reports the length 0xFF000000 on channel 0. */
    private static final String NEGATIVE_LENGTH_ON_CHANNEL_0 =
            "Corrupt record stream on channel 0: record length -16777216 is negative";

    @Test
    void negativeLength_failsAsCorruptStream() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(TestBuffer.buffer(0, new byte[] {(byte) 0xFF, 0, 0, 0, 1})).finish();
        RecordReader reader = new RecordReader(gate);

        ShuffleException failure = assertThrows(ShuffleException.class, reader::next);

        assertTrue(failure.getMessage().startsWith(NEGATIVE_LENGTH_ON_CHANNEL_0), failure.getMessage());
    }

    @Test
    void negativeLengthAfterAWholeRecord_failsEveryCall_andCloseRecyclesTheBuffer() throws Exception {
        // The second length is read where whole records are (after the buffer's first record); a failure must not
        // move the read position, so a caller that tries again gets the same error, never bytes of the corrupt part.
        ScriptedInputGate gate = new ScriptedInputGate(1);
        TestBuffer buffer = TestBuffer.buffer(0, new byte[] {0, 0, 0, 1, 'a', (byte) 0xFF, 0, 0, 0, 'b', 'c'});
        gate.add(buffer).finish();
        RecordReader reader = new RecordReader(gate);

        RecordOrEvent first = reader.next();
        assertEquals((byte) 'a', first.data().get(first.data().position()));
        assertEquals(1, first.data().remaining());
        for (int attempt = 0; attempt < 3; attempt++) {
            ShuffleException failure = assertThrows(ShuffleException.class, reader::next);
            assertTrue(failure.getMessage().startsWith(NEGATIVE_LENGTH_ON_CHANNEL_0), failure.getMessage());
        }
        assertEquals(0, buffer.recycleCount());

        reader.close();

        assertEquals(1, buffer.recycleCount());
    }

    // A length prefix corrupted on disk or on the wire: the reader must not allocate what it declares before the
    // bytes arrive, and must fail with the API's exception, never an OutOfMemoryError.
    @Test
    void corruptLengthDeclaringTwoGigabytes_failsAsATruncatedRecord_withoutAllocatingItsLength() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(TestBuffer.buffer(0, new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, 0x00, 1, 2, 3, 4, 5, 6})).finish();
        RecordReader reader = new RecordReader(gate);

        ShuffleException failure = assertThrows(ShuffleException.class, reader::next);

        assertEquals("Input gate finished, but channel 0 ended inside a record: 6 of its 2147483392 bytes arrived",
                failure.getMessage());
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void corruptLengthAboveTheLargestRecordAReaderCanHold_failsAtOnce_namingTheChannelAndTheLength() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(2);
        gate.add(TestBuffer.buffer(1, new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3})).finish();
        RecordReader reader = new RecordReader(gate);

        ShuffleException failure = assertThrows(ShuffleException.class, reader::next);

        assertTrue(failure.getMessage().startsWith("Corrupt record stream on channel 1: record length 2147483647 "
                + "exceeds 2147483639 bytes, the largest record a RecordReader can reassemble"),
                failure.getMessage());
        reader.close();
        assertEveryBufferRecycledOnce(gate);
    }

    @Test
    void finishedGate_returnsNullAgainAndAgain() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.finish();
        RecordReader reader = new RecordReader(gate);

        assertNull(reader.next());
        assertNull(reader.next());
        assertEquals(1, gate.pollCalls(), "a finished reader does not ask the gate again");
    }

    @Test
    void gateFailure_reachesTheReader() {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.fail(new ProducerFailedException("producer died: disk full"));
        RecordReader reader = new RecordReader(gate);

        ProducerFailedException failure = assertThrows(ProducerFailedException.class, reader::next);

        assertEquals("producer died: disk full", failure.getMessage());
    }

    @Test
    void close_recyclesTheHeldBuffers_andClosesTheGate() throws Exception {
        byte[] stream = frame(List.of(record(5, 1), record(5, 2), record(5, 3)));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, cut(stream, stream.length - 2)).finish();
        RecordReader reader = new RecordReader(gate);
        assertNotNull(reader.next());

        reader.close();
        reader.close();

        assertEquals(2, gate.closeCalls());
        assertEveryBufferRecycledOnce(gate);
        assertThrows(IllegalStateException.class, reader::next);
    }

    @Test
    void closeFromAnotherThread_wakesABlockedNext_whichFailsInsteadOfReportingTheEnd() throws Exception {
        byte[] payload = record(6, 1);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.addBuffers(0, List.of(frame(List.of(payload))));
        RecordReader reader = new RecordReader(gate);
        assertArrayEquals(payload, bytesOf(reader.next()));
        CompletableFuture<RecordOrEvent> blocked = BackgroundTask.start("blocked-reader", reader::next).result();
        gate.awaitWaiting();

        reader.close();

        ExecutionException failure = assertThrows(ExecutionException.class, () -> blocked.get(10, TimeUnit.SECONDS));
        assertInstanceOf(ShuffleException.class, failure.getCause());
        assertEquals("RecordReader was closed while next() was waiting", failure.getCause().getMessage());
        assertEveryBufferRecycledOnce(gate);
        assertEquals(1, gate.handedOut().size());
    }

    private static List<byte[]> readAllRecords(RecordReader reader) throws IOException, InterruptedException {
        List<byte[]> records = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            assertFalse(next.isEvent());
            records.add(bytesOf(next));
        }
        return records;
    }

    private static byte[] bytesOf(RecordOrEvent recordOrEvent) {
        ByteBuffer data = recordOrEvent.data().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return bytes;
    }

    private static void assertEveryBufferRecycledOnce(ScriptedInputGate gate) {
        for (TestBuffer buffer : gate.handedOut()) {
            assertEquals(1, buffer.recycleCount(), buffer + " recycled");
        }
    }
}
