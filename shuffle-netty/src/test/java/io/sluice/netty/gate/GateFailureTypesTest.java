package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What reaches a caller of a gate, or of a reader over it, is the API's {@link ShuffleException} family with the
 * cause attached, whatever went wrong underneath: a close from another thread, an event whose tag no writer
 * writes (bytes corrupted on disk), an unchecked failure of a channel or of what it calls (docs/contract.md
 * sections 5 and 6; docs/behaviours.md SIG-7, SIG-9, SIG-10).
 */
@Timeout(30)
class GateFailureTypesTest {

    private static final String OWNER = "test-consumer";

    private final ResultPartitionId partition = ResultPartitionId.random();

    /** A gate of {@code count} scripted channels, channel {@code i} reading subpartition {@code i} of one partition. */
    private SingleInputGate gate(int count) {
        SingleInputGate gate = new SingleInputGate(OWNER, count, closed -> { }, Runnable::run);
        for (int i = 0; i < count; i++) {
            gate.setChannel(new ScriptedInputChannel(gate, i, partition, i));
        }
        return gate;
    }

    private static ScriptedInputChannel channel(SingleInputGate gate, int index) {
        return (ScriptedInputChannel) gate.channel(index);
    }

    // SIG-7: the contract's "a waiting next() wakes and throws ShuffleException"
    @Test
    void recordReaderClosedFromAnotherThread_wakesItsWaitingNext_withShuffleException() throws Exception {
        SingleInputGate gate = gate(1);
        gate.setup();
        RecordReader reader = new RecordReader(gate);
        BackgroundTask<?> consumer = BackgroundTask.start("consumer", reader::next);
        consumer.awaitParkedIn("parkUntilData", Await.EVENTUALLY);

        reader.close();

        Throwable woken = consumer.awaitFailure();
        assertInstanceOf(ShuffleException.class, woken);
        assertEquals("RecordReader was closed while next() was waiting", woken.getMessage());
        assertThrows(IllegalStateException.class, reader::next, "a call after close() is a usage error (contract)");
    }

    // SIG-7, SIG-10
    @Test
    void readsOfAClosedGate_throwShuffleException_namingTheGate() throws Exception {
        SingleInputGate gate = gate(1);
        gate.setup();
        BackgroundTask<?> consumer = BackgroundTask.start("consumer", gate::getNext);
        consumer.awaitParkedIn("parkUntilData", Await.EVENTUALLY);

        gate.close();

        Throwable woken = consumer.awaitFailure();
        assertInstanceOf(ShuffleException.class, woken);
        assertEquals("gate of " + OWNER + " is closed", woken.getMessage());
        assertEquals("gate of " + OWNER + " is closed", assertThrows(ShuffleException.class, gate::pollNext)
                .getMessage());
        assertThrows(ShuffleException.class, gate::getNext);
    }

    // SIG-9: an in-process read of a blocking partition whose stored kind byte was flipped to "event" hands the gate
    // an event whose tag is a data byte ('C' = 67)
    @Test
    void eventWithAnUnknownTag_failsItsChannelWithShuffleException_namingPartitionAndSubpartition_onEveryRead()
            throws Exception {
        SingleInputGate gate = gate(2);
        gate.setup();
        AtomicInteger recycled = new AtomicInteger();
        channel(gate, 1).add(new Buffer(MemorySegment.wrap(new byte[] {'C', 'D', 'E'}),
                segment -> recycled.incrementAndGet(), false, 3));

        ShuffleException failure = assertThrows(ShuffleException.class, gate::pollNext);

        assertEquals("channel 1 of " + OWNER + " (partition " + partition + ", subpartition 1) received a corrupt "
                + "event: unknown event tag 67 (known: 0 end-of-partition, 1 user event, 2 blocking user event, "
                + "3 announced blocking user event)", failure.getMessage());
        assertInstanceOf(IllegalArgumentException.class, failure.getCause());
        assertEquals(1, recycled.get(), "the corrupt event's buffer is recycled by the gate");
        assertSame(failure, assertThrows(ShuffleException.class, gate::pollNext), "the channel keeps failing");
        gate.close();
    }

    @Test
    void uncheckedFailureOfAChannelRead_reachesTheConsumerAsShuffleException_withTheCause_onEveryRead()
            throws Exception {
        SingleInputGate gate = gate(1);
        gate.setup();
        IllegalStateException bug = new IllegalStateException("view broke");
        channel(gate, 0).failNextRead(bug);

        ShuffleException failure = assertThrows(ShuffleException.class, gate::getNext);

        assertEquals("channel 0 of " + OWNER + " (partition " + partition + ", subpartition 0) failed: "
                + "java.lang.IllegalStateException: view broke", failure.getMessage());
        assertSame(bug, failure.getCause());
        assertSame(failure, assertThrows(ShuffleException.class, gate::pollNext), "the channel keeps failing");
        gate.close();
    }

    @Test
    void uncheckedFailureOfAChannelSetup_failsSetupWithShuffleException_andReleasesEveryChannel() {
        SingleInputGate gate = gate(2);
        IllegalStateException cause = new IllegalStateException("no memory pool: the environment is closed");
        channel(gate, 1).failSetupWith(cause);

        ShuffleException failure = assertThrows(ShuffleException.class, gate::setup);

        assertEquals("gate of " + OWNER + " cannot be set up: java.lang.IllegalStateException: no memory pool: "
                + "the environment is closed", failure.getMessage());
        assertSame(cause, failure.getCause());
        assertTrue(channel(gate, 0).isReleased() && channel(gate, 1).isReleased(), "a failed setup keeps nothing");
    }

    @Test
    void uncheckedFailureOfAPartitionRequest_failsThatChannelAtTheNextRead_notTheSetup() throws Exception {
        SingleInputGate gate = gate(2);
        RejectedExecutionException cause = new RejectedExecutionException("event loop terminated");
        channel(gate, 1).failRequestWith(cause);

        gate.setup();
        ShuffleException failure = assertThrows(ShuffleException.class, gate::pollNext);

        assertEquals("channel 1 of " + OWNER + " (partition " + partition + ", subpartition 1) cannot request its "
                + "partition: java.util.concurrent.RejectedExecutionException: event loop terminated",
                failure.getMessage());
        assertSame(cause, failure.getCause());
        gate.close();
    }

    @Test
    void uncheckedFailuresOfTaskEventsAndResume_areShuffleExceptionsNamingTheChannel() throws Exception {
        SingleInputGate gate = gate(2);
        gate.setup();
        IllegalStateException listenerBroke = new IllegalStateException("producer's listener broke");
        channel(gate, 1).failTaskEventsWith(listenerBroke);
        IllegalStateException resumeBroke = new IllegalStateException("view broke");
        channel(gate, 0).failResumeWith(resumeBroke);

        ShuffleException all = assertThrows(ShuffleException.class, () -> gate.sendTaskEvent(ByteBuffer.allocate(1)));
        ShuffleException one = assertThrows(ShuffleException.class,
                () -> gate.sendTaskEvent(1, ByteBuffer.allocate(1)));
        ShuffleException resume = assertThrows(ShuffleException.class, () -> gate.resumeConsumption(0));

        assertSame(listenerBroke, all.getCause());
        assertSame(listenerBroke, one.getCause());
        assertTrue(one.getMessage().startsWith("channel 1 of " + OWNER + " (partition " + partition
                + ", subpartition 1) cannot send a task event: "), one.getMessage());
        assertSame(resumeBroke, resume.getCause());
        assertTrue(resume.getMessage().startsWith("channel 0 of " + OWNER + " (partition " + partition
                + ", subpartition 0) cannot resume consumption: "), resume.getMessage());
        gate.close();
    }

    @Test
    void channelWhoseReleaseThrows_doesNotKeepTheOtherChannelsFromBeingReleased_andCloseDoesNotThrow()
            throws IOException {
        SingleInputGate gate = gate(3);
        gate.setup();
        channel(gate, 0).failReleaseWith(new IllegalStateException("release broke"));

        assertDoesNotThrow(gate::close);

        for (int i = 0; i < 3; i++) {
            assertTrue(channel(gate, i).isReleased(), "channel " + i);
        }
    }

    @Test
    void describeChannel_namesTheOwnerThePartitionAndTheSubpartition() {
        SingleInputGate gate = gate(3);

        assertEquals("channel 2 of " + OWNER + " (partition " + partition + ", subpartition 2)",
                gate.describeChannel(2));
        assertEquals("channel 7 of " + OWNER, gate.describeChannel(7), "a channel the gate does not have");
    }
}
