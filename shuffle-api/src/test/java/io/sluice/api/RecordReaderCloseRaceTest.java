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
 * the reader's contract is that close() recycles every buffer exactly once and returns only when it has, that a
 * record handed out is never read from a recycled buffer, and that the consumer sees nothing but its records in
 * order, then either {@link IllegalStateException} (next() after or during close) or {@link ShuffleException}
 * (closed while waiting). The buffers here overwrite their bytes when recycled, as a pool reusing the memory would,
 * so a read of a recycled buffer shows as a wrong record or a corrupt length.
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

            // close() has returned: every buffer is back, whatever the consumer is doing now.
            for (TestBuffer buffer : buffers) {
                assertEquals(1, buffer.recycleCount(), "round " + round + ": " + buffer + " recycled");
            }
            Throwable end = consumer.await(Duration.ofSeconds(10));
            assertTrue(unexpected.isEmpty(), "round " + round + ": " + unexpected);
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
        reader.close();
        assertFalse(gate.handedOut().isEmpty());
        for (TestBuffer handedOut : gate.handedOut()) {
            assertEquals(1, handedOut.recycleCount());
        }
    }

    /**
     * The consumer: reads until next() throws, checking every record; returns what ended the loop. A wrong record,
     * a null (the gate never finishes here) or any other exception goes to {@code unexpected}. A record whose bytes
     * are all {@link TestBuffer#POISON} is legal only as the last one: the contract lets close() recycle the buffer
     * of the record the consumer holds, and then the following next() must throw; a record read from a recycled
     * buffer inside next() shows as a poisoned length, a double recycle, or a poisoned record followed by more.
     */
    private static Throwable readUntilStopped(RecordReader reader, ConcurrentLinkedQueue<Throwable> unexpected) {
        long expected = 0;
        boolean poisonSeen = false;
        try {
            while (true) {
                RecordOrEvent next = reader.next();
                if (next == null) {
                    unexpected.add(new AssertionError("next() returned null: the gate never finished"));
                    return null;
                }
                if (poisonSeen) {
                    unexpected.add(new AssertionError("record " + expected + " was poisoned (its buffer recycled),"
                            + " yet next() went on handing out records"));
                    return null;
                }
                ByteBuffer data = next.data();
                byte[] actual = new byte[data.remaining()];
                data.duplicate().get(actual);
                if (isTouchedByPoison(actual)) {
                    poisonSeen = true; // wholly or partly: close() may recycle while the consumer reads
                    continue;
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
            } else if (poisonSeen && !(expectedEnd instanceof IllegalStateException)) {
                unexpected.add(new AssertionError("a poisoned record, then " + expectedEnd));
            }
            return expectedEnd;
        } catch (Throwable t) { // NPE, AssertionError of a double recycle, ...: all a broken protocol
            unexpected.add(t);
            return t;
        }
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
