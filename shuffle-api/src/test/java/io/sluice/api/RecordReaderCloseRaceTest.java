package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.BackgroundTask;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordReader#close()} from another thread while the consumer calls {@link RecordReader#next()} in a loop:
 * the reader's contract is that close() never recycles a buffer the consumer holds (the consumer's next call does),
 * so every buffer is recycled exactly once, no record handed out is ever read from a recycled buffer, and the
 * consumer sees nothing but its records in order, then either {@link IllegalStateException} (next() after close)
 * or {@link ShuffleException} (closed while waiting). The buffers here overwrite their bytes when recycled, as a
 * pool reusing the memory would, so a read of a recycled buffer shows as a wrong or poisoned record or a corrupt
 * length.
 */
class RecordReaderCloseRaceTest {

    private static final int ROUNDS = 2_000;
    private static final int BUFFERS = 20;
    private static final int RECORDS_PER_BUFFER = 64;
    private static final int RECORD_BYTES = 8;

    @Test
    void closeRacingANextLoop_recyclesEveryBufferOnce_andTheConsumerSeesOnlyIntactRecordsInOrder() throws Exception {
        int closedWhileReading = 0;
        int closedWhileWaiting = 0;
        for (int round = 0; round < ROUNDS; round++) {
            List<TestBuffer> buffers = new ArrayList<>();
            ScriptedInputGate gate = new ScriptedInputGate(1);
            long sequence = 0;
            for (int b = 0; b < BUFFERS; b++) {
                ByteBuffer bytes = ByteBuffer.allocate(RECORDS_PER_BUFFER * (RecordFraming.LENGTH_BYTES + RECORD_BYTES));
                for (int r = 0; r < RECORDS_PER_BUFFER; r++) {
                    bytes.putInt(RECORD_BYTES).put(recordBytes(sequence));
                    sequence++;
                }
                TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, bytes.array());
                buffers.add(buffer);
                gate.add(buffer);
            }
            RecordReader reader = new RecordReader(gate);
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            CountDownLatch started = new CountDownLatch(1);
            BackgroundTask<Throwable> consumer = BackgroundTask.start("racing-consumer", () -> {
                started.countDown();
                return readUntilStopped(reader, unexpected);
            });
            started.await();
            int spins = ThreadLocalRandom.current().nextInt(20_000);
            for (int i = 0; i < spins; i++) {
                Thread.onSpinWait();
            }

            reader.close();

            // The consumer's next call ends its loop and recycles what it held: then every buffer is back, once.
            Throwable end = consumer.await(Duration.ofSeconds(10));
            assertTrue(unexpected.isEmpty(), "round " + round + ": " + unexpected);
            for (TestBuffer buffer : buffers) {
                assertEquals(1, buffer.recycleCount(), "round " + round + ": " + buffer + " recycled");
            }
            if (end instanceof ShuffleException) {
                assertEquals("RecordReader was closed while next() was waiting", end.getMessage());
                closedWhileWaiting++;
            } else {
                assertInstanceOf(IllegalStateException.class, end, "round " + round);
                assertEquals("RecordReader.next() called after close()", end.getMessage());
                closedWhileReading++;
            }
        }
        // Not a timing assertion: both outcomes are legal; printed to show which races the rounds hit.
        System.out.printf("close() racing next(): %d rounds closed while reading, %d while waiting%n",
                closedWhileReading, closedWhileWaiting);
    }

    @Test
    void nextAfterCloseFromAnotherThread_throwsAndHoldsNothing() throws Exception {
        ScriptedInputGate gate = new ScriptedInputGate(1);
        TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(List.of(new byte[8], new byte[8])));
        gate.add(buffer);
        RecordReader reader = new RecordReader(gate);
        reader.next();

        BackgroundTask.start("closer", reader::close).await(Duration.ofSeconds(10));

        IllegalStateException failure = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                reader::next);
        assertEquals("RecordReader.next() called after close()", failure.getMessage());
        assertEquals(1, buffer.recycleCount());
    }

    @Test
    void closeFromAnotherThread_whileTheConsumerHoldsARecord_leavesItIntact_untilTheConsumersNextCall()
            throws Exception {
        byte[] first = FramedStream.record(8, 1);
        TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(List.of(first, new byte[8])));
        TestBuffer queued = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(List.of(new byte[8])));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(buffer);
        gate.add(queued);
        RecordReader reader = new RecordReader(gate);
        ByteBuffer held = reader.next().data();

        BackgroundTask.start("closer", reader::close).await(Duration.ofSeconds(10));

        assertEquals(1, gate.closeCalls(), "the gate is closed at once");
        assertEquals(0, buffer.recycleCount(), "the buffer the consumer reads stays the consumer's");
        byte[] bytes = new byte[held.remaining()];
        held.duplicate().get(bytes);
        assertArrayEquals(first, bytes, "the record the consumer holds is intact after a close on another thread");
        IllegalStateException failure = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                reader::next);
        assertEquals("RecordReader.next() called after close()", failure.getMessage());
        assertEquals(1, buffer.recycleCount(), "the consumer's next call recycled it");
        reader.close();
        assertEquals(1, buffer.recycleCount());
    }

    @Test
    void closeFromAnotherThread_onceTheConsumersThreadHasEnded_recyclesWhatItHeldAtOnce() throws Exception {
        TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(List.of(new byte[8], new byte[8])));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(buffer);
        RecordReader reader = new RecordReader(gate);
        BackgroundTask<Void> consumer = BackgroundTask.start("short-lived-consumer", () -> {
            reader.next();
        });
        consumer.await(Duration.ofSeconds(10));
        consumer.thread().join(10_000);
        assertFalse(consumer.thread().isAlive());

        reader.close();

        assertEquals(1, buffer.recycleCount(), "nobody is left to read it, so close() recycles it");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, reader::next);
        assertEquals(1, buffer.recycleCount());
    }

    @Test
    void readerHandedToAnotherThread_readsOnInOrder_andACloseThereRecyclesAtOnce() throws Exception {
        List<byte[]> records = List.of(FramedStream.record(8, 1), FramedStream.record(8, 2), FramedStream.record(8, 3));
        TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(records));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(buffer);
        RecordReader reader = new RecordReader(gate);
        assertArrayEquals(records.get(0), bytesOf(reader.next()));

        // The join of the task is the happens-before edge the hand-off needs.
        byte[] second = BackgroundTask.start("next-consumer", () -> bytesOf(reader.next()))
                .await(Duration.ofSeconds(10));
        assertArrayEquals(records.get(1), second);
        assertArrayEquals(records.get(2), bytesOf(reader.next()), "back on the first thread, in order");

        reader.close();

        assertEquals(1, buffer.recycleCount(), "closed on the thread that read last: recycled at once");
    }

    @Test
    void closeFromAnotherThread_beforeAnyNext_thenNextThrows_andNothingIsHeld() throws Exception {
        TestBuffer buffer = TestBuffer.poisonedOnRecycle(0, FramedStream.frame(List.of(new byte[8])));
        ScriptedInputGate gate = new ScriptedInputGate(1);
        gate.add(buffer);
        RecordReader reader = new RecordReader(gate);

        BackgroundTask.start("closer", reader::close).await(Duration.ofSeconds(10));

        IllegalStateException failure = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                reader::next);
        assertEquals("RecordReader.next() called after close()", failure.getMessage());
        assertTrue(gate.handedOut().isEmpty(), "next() took nothing from the closed gate");
    }

    @Test
    void secondThreadCallingNext_whileOneWaits_getsAnIllegalStateException_andTheWaitingCallIsUndisturbed()
            throws Exception {
        byte[] payload = FramedStream.record(8, 3);
        ScriptedInputGate gate = new ScriptedInputGate(1);
        RecordReader reader = new RecordReader(gate);
        BackgroundTask<byte[]> waiting = BackgroundTask.start("waiting-reader", () -> {
            ByteBuffer data = reader.next().data();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            return bytes;
        });
        gate.awaitWaiting();

        IllegalStateException failure = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                reader::next);

        assertTrue(failure.getMessage().contains("while another call of next() was under way"), failure.getMessage());
        gate.addBuffers(0, List.of(FramedStream.frame(List.of(payload))));
        assertArrayEquals(payload, waiting.await(Duration.ofSeconds(10)));
        waiting.thread().join(10_000); // the consumer's thread has ended: close() recycles what it held at once
        reader.close();
        assertFalse(gate.handedOut().isEmpty());
        for (TestBuffer handedOut : gate.handedOut()) {
            assertEquals(1, handedOut.recycleCount());
        }
    }

    /**
     * The consumer: reads until next() throws, checking every record; returns what ended the loop. A wrong record,
     * a null (the gate never finishes here), a record touched by {@link TestBuffer#POISON} (read from a recycled
     * buffer, inside next() or while the consumer held it) or any other exception goes to {@code unexpected}.
     */
    private static Throwable readUntilStopped(RecordReader reader, ConcurrentLinkedQueue<Throwable> unexpected) {
        long expected = 0;
        try {
            while (true) {
                RecordOrEvent next = reader.next();
                if (next == null) {
                    unexpected.add(new AssertionError("next() returned null: the gate never finished"));
                    return null;
                }
                ByteBuffer data = next.data();
                byte[] actual = new byte[data.remaining()];
                data.duplicate().get(actual);
                if (isTouchedByPoison(actual)) {
                    unexpected.add(new AssertionError("record " + expected + " was read from a recycled buffer: "
                            + java.util.Arrays.toString(actual)));
                    return null;
                }
                if (!java.util.Arrays.equals(recordBytes(expected), actual)) {
                    unexpected.add(new AssertionError("record " + expected + " read as "
                            + java.util.Arrays.toString(actual)));
                    return null;
                }
                expected++;
            }
        } catch (IllegalStateException | ShuffleException expectedEnd) {
            if (expectedEnd.getMessage().startsWith("Corrupt record stream")) {
                unexpected.add(expectedEnd); // a poisoned length: next() read a recycled buffer
            }
            return expectedEnd;
        } catch (Throwable t) { // NPE, AssertionError of a double recycle, ...: all a broken protocol
            unexpected.add(t);
            return t;
        }
    }

    private static byte[] bytesOf(RecordOrEvent recordOrEvent) {
        ByteBuffer data = recordOrEvent.data().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return bytes;
    }

    /** Record {@code sequence}'s bytes: 7 bits of it per byte, then their complements; never a POISON byte. */
    private static byte[] recordBytes(long sequence) {
        byte[] bytes = new byte[RECORD_BYTES];
        for (int i = 0; i < RECORD_BYTES / 2; i++) {
            bytes[i] = (byte) ((sequence >>> (7 * i)) & 0x7F);
            bytes[RECORD_BYTES / 2 + i] = (byte) (0x7F - bytes[i]);
        }
        return bytes;
    }

    private static boolean isTouchedByPoison(byte[] bytes) {
        for (byte b : bytes) {
            if (b == TestBuffer.POISON) {
                return true;
            }
        }
        return false;
    }
}
