package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.buffers.BufferBuilder;
import io.sluice.buffers.BufferConsumer;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The queue of one consumer: what it accepts, what it hands out and with which flags, and exactly when it tells
 * its reader (docs/behaviours.md section 4, PS-*).
 */
class PipelinedSubpartitionTest {

    private static final int SIZE = PartitionFixture.DEFAULT_SEGMENT_SIZE;

    private final PartitionFixture fixture = new PartitionFixture();
    private final RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
    private ResultPartition partition;
    private PipelinedSubpartition subpartition;
    private QueueElements elements;

    @BeforeEach
    void setUp() throws IOException {
        partition = fixture.setUpPartition(2);
        subpartition = partition.subpartition(0);
        elements = new QueueElements(partition.bufferPool());
    }

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        elements.close();
        fixture.close();
    }

    // PS-1
    @Test
    void createReadView_secondReader_isRejected() {
        subpartition.createReadView(listener);

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> subpartition.createReadView(new RecordingAvailabilityListener()));
        assertTrue(error.getMessage().contains("already has a reader"), error.getMessage());
        assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
    }

    // PS-1
    @Test
    void createReadView_afterRelease_isRejected() {
        subpartition.release(null);

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> subpartition.createReadView(listener));
        assertTrue(error.getMessage().contains("is released"), error.getMessage());
    }

    // PS-2 [core]
    @Test
    void add_afterFinish_returnsMinusOne_recyclesTheBuffer_countersUnchanged() {
        subpartition.finish();
        assertEquals(1, subpartition.getNumberOfQueuedBuffers(), "finish queues exactly the end of partition");
        assertEquals(0, subpartition.getBacklog(), "an event is not backlog");

        BufferConsumer late = elements.finished(1, SIZE);
        assertEquals(-1, subpartition.add(late, false));

        assertTrue(late.isRecycled(), "a refused buffer is recycled at once");
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertEquals(1, subpartition.getNumberOfQueuedBuffers());
        assertEquals(0, subpartition.getBacklog());
    }

    // PS-2 [core]
    @Test
    void add_afterRelease_returnsMinusOne_recyclesTheBuffer_countersUnchanged() {
        subpartition.release(null);

        BufferConsumer late = elements.finished(1, SIZE);
        assertEquals(-1, subpartition.add(late, false));
        assertEquals(-1, subpartition.add(QueueElements.event("late"), true));

        assertTrue(late.isRecycled());
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertEquals(0, subpartition.getNumberOfQueuedBuffers());
        assertEquals(0, subpartition.getBacklog());
    }

    // PS-2 [core]
    @Test
    void finish_queuesOneEndOfPartition_behindTheData_andIsIdempotent() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, 10), false);
        subpartition.finish();
        subpartition.finish();

        assertEquals(2, subpartition.getNumberOfQueuedBuffers());
        assertEquals(1, subpartition.getBacklog(), "after finish the last data buffer is sendable");
        assertEquals(1, listener.total(), "finish tells the reader");

        Polled data = Polled.take(view);
        assertArrayEquals(QueueElements.content(1, 10), data.bytes());
        assertTrue(data.isDataAvailable(), "the end of partition is readable next");
        assertTrue(data.nextIsEvent());
        assertTrue(Polled.take(view).endOfPartition());
        assertNull(view.getNextBuffer());
    }

    // PS-3 (our API: a pipelined subpartition whose reader left is released, docs/contract.md "consumer has gone")
    @Test
    void releasingTheView_releasesTheQueue_andLaterReadsReturnNothing() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        subpartition.add(elements.finished(2, SIZE), false);

        view.releaseAllResources();
        view.releaseAllResources();

        assertTrue(view.isReleased());
        assertTrue(subpartition.isReleased());
        assertEquals(0, subpartition.getNumberOfQueuedBuffers());
        assertNull(view.getNextBuffer(), "reading a released view returns nothing and does not throw");
        assertFalse(view.isAvailable(1));
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
    }

    // PS-3
    @Test
    void release_isIdempotent_andTheViewFollowsItsSubpartition() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        assertFalse(view.isReleased());

        subpartition.release(null);
        subpartition.release(new IOException("second release is ignored"));

        assertTrue(view.isReleased());
        assertNull(view.getFailureCause(), "the first release wins");
        assertEquals(1, listener.total(), "the reader is told once");
    }

    // PS-5 [core]
    @ParameterizedTest(name = "with a reader: {0}")
    @ValueSource(booleans = {false, true})
    void release_withQueuedBuffers_recyclesEveryOne(boolean withReader) {
        ResultSubpartitionView view = withReader ? subpartition.createReadView(listener) : null;
        BufferConsumer first = elements.finished(1, SIZE);
        BufferConsumer second = elements.finished(2, SIZE);
        BufferConsumer event = QueueElements.event("event");
        BufferBuilder open = elements.unfinished(3, 5);
        BufferConsumer last = open.createBufferConsumerFromBeginning();
        subpartition.add(first, false);
        subpartition.add(second, false);
        subpartition.add(event, false);
        subpartition.add(last, false);
        subpartition.add(QueueElements.event("priority"), true);
        int notificationsBefore = listener.total();

        subpartition.release(null);

        assertEquals(0, subpartition.getNumberOfQueuedBuffers());
        assertEquals(0, subpartition.getBacklog());
        assertTrue(first.isRecycled() && second.isRecycled() && event.isRecycled(), "queued elements recycled");
        assertFalse(last.isRecycled(), "the producer still holds the buffer under construction");
        elements.closeBuilder(open);
        assertTrue(last.isRecycled());
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        if (withReader) {
            assertTrue(view.isReleased());
            assertEquals(notificationsBefore + 1, listener.total(), "the reader is told of the release");
            assertNull(view.getNextBuffer());
        }
    }

    // PS-6
    @Test
    void fail_givesTheReaderTheProducersCause() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        IOException cause = new IOException("disk on fire");

        partition.fail(cause);

        assertTrue(view.isReleased());
        assertSame(cause, view.getFailureCause());
        assertNull(view.getNextBuffer());
        assertEquals(2, listener.total(), "once for the finished buffer, once for the release");
    }

    // PS-7
    @Test
    void emptyUnfinishedBuffer_notifiesNothing_andReadsNothing() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        BufferBuilder empty = elements.unfinished(1, 0);
        subpartition.add(empty.createBufferConsumerFromBeginning(), false);

        assertEquals(0, listener.total());
        assertNull(view.getNextBuffer());
        subpartition.flush();
        assertEquals(0, listener.total(), "flushing an empty buffer tells nobody");
        assertFalse(view.isAvailable(1));
        assertEquals(1, subpartition.getNumberOfQueuedBuffers(), "the buffer stays for the producer to fill");
    }

    // PS-7
    @Test
    void emptyFinishedBuffers_areSkipped_andNotifyOnce() {
        ResultSubpartitionView view = subpartition.createReadView(listener);

        // A buffer its writer finished is complete, even when empty: the reader is told once, not per element.
        subpartition.add(elements.finished(1, 0), false);
        assertEquals(1, listener.total());
        subpartition.add(elements.finished(2, 0), false);
        assertEquals(1, listener.total());
        subpartition.add(elements.finished(3, 0), false);
        assertEquals(1, listener.total());
        assertEquals(3, subpartition.getBacklog());
        subpartition.add(elements.finished(4, 20), false);
        assertEquals(1, listener.total());

        Polled data = Polled.take(view);
        assertArrayEquals(QueueElements.content(4, 20), data.bytes(), "the empty buffers are skipped");
        assertFalse(data.isDataAvailable());
        assertEquals(0, data.backlog());
        assertNull(view.getNextBuffer());
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers(), "skipped buffers are recycled");
    }

    // PS-8
    @Test
    void loneUnfinishedBuffer_isReadable_butNotBacklog_andNeverReportsMore() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        BufferBuilder open = elements.unfinished(1, 10);
        subpartition.add(open.createBufferConsumerFromBeginning(), false);

        assertEquals(0, subpartition.getBacklog());
        assertEquals(0, listener.total());
        Polled polled = Polled.take(view);
        assertArrayEquals(QueueElements.content(1, 10), polled.bytes());
        assertFalse(polled.isDataAvailable(), "no busy loop on a buffer under construction");
        assertEquals(0, polled.backlog());
        assertNull(view.getNextBuffer(), "nothing new was committed");

        open.appendAndCommit(ByteBuffer.wrap(new byte[] {42, 43}));
        assertArrayEquals(new byte[] {42, 43}, Polled.take(view).bytes(), "only the bytes committed since");
    }

    // PS-9
    @Test
    void finishedBufferBeforeAnUnfinishedOne_backlogOne_oneNotification_bothReadable() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        BufferBuilder open = elements.unfinished(2, 7);
        subpartition.add(open.createBufferConsumerFromBeginning(), false);

        assertEquals(1, subpartition.getBacklog());
        assertEquals(1, listener.total());
        Polled first = Polled.take(view);
        assertArrayEquals(QueueElements.content(1, SIZE), first.bytes());
        assertFalse(first.isDataAvailable());
        assertEquals(0, first.backlog());
        Polled second = Polled.take(view);
        assertArrayEquals(QueueElements.content(2, 7), second.bytes(), "not announced, but still readable");
        assertNull(view.getNextBuffer());
    }

    // PS-10 [core]
    @Test
    void flush_emptyQueue_notifiesNobody() {
        subpartition.createReadView(listener);

        subpartition.flush();

        assertEquals(0, listener.total());
    }

    // PS-10 [core]
    @Test
    void flush_loneUnfinishedBuffer_notifiesExactlyOnce_andMakesItBacklog() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        BufferBuilder open = elements.unfinished(2, 9);
        subpartition.add(open.createBufferConsumerFromBeginning(), false);
        Polled.take(view);
        int before = listener.total();

        subpartition.flush();
        subpartition.flush();

        assertEquals(before + 1, listener.total(), "one notification per flush, none for repeats");
        assertEquals(1, subpartition.getBacklog(), "a flushed buffer counts in the backlog");
        assertTrue(view.isAvailable(1));
        Polled flushed = Polled.take(view);
        assertArrayEquals(QueueElements.content(2, 9), flushed.bytes());
        assertFalse(flushed.isDataAvailable());
        assertNull(view.getNextBuffer());
    }

    // PS-10 [core]
    @Test
    void flush_afterTheReaderWasTold_addsNoNotification_butMakesTheTailAvailable() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        BufferBuilder open = elements.unfinished(2, 3);
        subpartition.add(open.createBufferConsumerFromBeginning(), false);
        assertEquals(1, listener.total());
        assertEquals(1, subpartition.getBacklog());

        subpartition.flush();

        assertEquals(1, listener.total(), "the reader was told already");
        assertEquals(2, subpartition.getBacklog());
        Polled first = Polled.take(view);
        assertTrue(first.isDataAvailable(), "the flushed tail is available");
        assertEquals(1, first.backlog());
        Polled tail = Polled.take(view);
        assertArrayEquals(QueueElements.content(2, 3), tail.bytes());
        assertFalse(tail.isDataAvailable());
        assertEquals(0, tail.backlog());
    }

    // PS-11 [core]
    @Test
    void dataEventData_notifyOnTheSecondElement_eventsKeepTheirPlace_andFlagsAreExact() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        BufferBuilder first = elements.unfinished(1, SIZE);
        subpartition.add(first.createBufferConsumerFromBeginning(), false);
        assertEquals(0, listener.total(), "a lone buffer waits for a flush or the next element");
        elements.closeBuilder(first);
        subpartition.add(QueueElements.event("between"), false);
        assertEquals(1, listener.total());
        BufferBuilder second = elements.unfinished(2, 5);
        subpartition.add(second.createBufferConsumerFromBeginning(), false);
        elements.closeBuilder(second);
        assertEquals(1, listener.total(), "the reader was told already");
        assertEquals(2, subpartition.getBacklog(), "events are not backlog; finished buffers are");

        Polled data1 = Polled.take(view);
        Polled event = Polled.take(view);
        Polled data2 = Polled.take(view);

        assertAll(
                () -> assertArrayEquals(QueueElements.content(1, SIZE), data1.bytes()),
                () -> assertTrue(data1.isDataAvailable()),
                () -> assertEquals(1, data1.backlog(), "the finished second buffer"),
                () -> assertTrue(data1.nextIsEvent()),
                () -> assertEquals("between", event.eventText()),
                () -> assertTrue(event.isDataAvailable(), "the finished second buffer is readable"),
                () -> assertEquals(1, event.backlog()),
                () -> assertFalse(event.nextIsEvent()),
                () -> assertArrayEquals(QueueElements.content(2, 5), data2.bytes()),
                () -> assertFalse(data2.isDataAvailable()),
                () -> assertNull(view.getNextBuffer()));
    }

    // PS-11 [core], PS-15
    @Test
    void loneEvent_isAvailableAtOnce() {
        ResultSubpartitionView view = subpartition.createReadView(listener);

        subpartition.add(QueueElements.event("alone"), false);

        assertEquals(1, listener.total(), "an event is complete: nothing is left to wait for");
        assertTrue(view.isAvailable(0), "events need no credit");
        assertTrue(view.isAvailable(1));
        assertEquals("alone", Polled.take(view).eventText());
    }

    // PS-12 [core]
    @Test
    void priorityEvent_overtakesQueuedData_withOnePriorityNotification() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, 1), false);
        subpartition.add(elements.finished(2, 2), false);
        subpartition.add(QueueElements.event("ordinary"), false);
        subpartition.add(elements.finished(4, 4), false);
        assertEquals(1, listener.dataNotifications());
        assertEquals(0, listener.priorityNotifications());

        subpartition.add(QueueElements.event("priority"), true);

        assertEquals(1, listener.priorityNotifications());
        assertEquals(1, listener.dataNotifications());
        Polled priority = Polled.take(view);
        assertAll(
                () -> assertEquals("priority", priority.eventText()),
                () -> assertTrue(priority.isPriority()),
                () -> assertTrue(priority.isDataAvailable()),
                () -> assertEquals(3, priority.backlog(), "three finished data buffers"));
        List<Polled> rest = List.of(Polled.take(view), Polled.take(view), Polled.take(view), Polled.take(view));
        assertArrayEquals(QueueElements.content(1, 1), rest.get(0).bytes());
        assertArrayEquals(QueueElements.content(2, 2), rest.get(1).bytes());
        assertTrue(rest.get(1).nextIsEvent());
        assertEquals("ordinary", rest.get(2).eventText());
        assertFalse(rest.get(2).isPriority());
        assertArrayEquals(QueueElements.content(4, 4), rest.get(3).bytes());
        assertNull(view.getNextBuffer());
    }

    // PS-12 [core]
    @Test
    void afterAPriorityEvent_laterAddsNotifyAsUsual() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(QueueElements.event("priority"), true);
        assertEquals("priority", Polled.take(view).eventText());

        subpartition.add(elements.finished(1, 3), false);
        assertEquals(1, listener.dataNotifications(), "a finished buffer is readable at once");
        subpartition.add(elements.finished(2, 3), false);
        assertEquals(1, listener.dataNotifications(), "the reader was told already");
        assertEquals(1, listener.priorityNotifications());
    }

    // PS-13
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unflushed", "flushed", "finished"})
    void backlog_equalsTheDataBuffersACreditedReaderCanTake(String how) {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        for (int i = 0; i < 4; i++) {
            subpartition.add(elements.finished(i, SIZE), false);
        }
        BufferBuilder tail = elements.unfinished(4, 11);
        subpartition.add(tail.createBufferConsumerFromBeginning(), false);
        if (how.equals("flushed")) {
            subpartition.flush();
        } else if (how.equals("finished")) {
            elements.closeBuilder(tail);
            subpartition.finish();
        }
        int backlog = subpartition.getBacklog();

        int dataBuffers = 0;
        while (view.isAvailable(Integer.MAX_VALUE)) {
            if (Polled.take(view).isBuffer()) {
                dataBuffers++;
            }
        }

        assertEquals(how.equals("unflushed") ? 4 : 5, backlog);
        assertEquals(backlog, dataBuffers);
    }

    // PS-15
    @Test
    void queuedCount_risesPerAdd_andFallsPerPoll() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        subpartition.add(QueueElements.event("e"), false);
        subpartition.add(elements.finished(2, SIZE), false);
        assertEquals(3, subpartition.getNumberOfQueuedBuffers());
        subpartition.add(QueueElements.event("p"), true);
        assertEquals(4, subpartition.getNumberOfQueuedBuffers());

        for (int expected = 3; expected >= 0; expected--) {
            Polled.take(view);
            assertEquals(expected, subpartition.getNumberOfQueuedBuffers());
        }
    }

    // PS-11: sequence numbers tell the reader the position of each element, priority events included
    @Test
    void sequenceNumbers_countEveryElementTakenInOrder() {
        ResultSubpartitionView view = subpartition.createReadView(listener);
        subpartition.add(elements.finished(1, SIZE), false);
        subpartition.add(elements.finished(2, SIZE), false);
        subpartition.add(QueueElements.event("p"), true);

        for (int expected = 0; expected < 3; expected++) {
            BufferAndBacklog next = view.getNextBuffer();
            assertEquals(expected, next.sequenceNumber());
            next.buffer().recycleBuffer();
        }
    }
}
