package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A remote input channel on its own, driven the way the client handler (event loop), the consumer and recycling
 * threads drive it: sequence numbers, errors, retries, and the floating-buffer rules (docs/behaviours.md section 7,
 * RIC-*). The numbers of the floating-buffer tests are the test vectors of docs/behaviours.md.
 */
@Timeout(60)
class RemoteInputChannelTest {

    private static final int SEGMENT_SIZE = 64;
    private static final int SEGMENTS = 1024;

    private final RemoteChannels channels = new RemoteChannels(SEGMENTS, SEGMENT_SIZE);
    private final NetworkBufferPool globalPool = channels.globalPool();
    private final RecordingTimer timer = channels.timer();
    private final ExecutorService threads = Executors.newFixedThreadPool(4);

    @AfterEach
    void closeAndCheckForLeaks() throws InterruptedException {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS), "test threads stopped");
        channels.close();
    }

    // RIC-1
    @Test
    void sequenceGap_failsTheNextRead_andBuffersQueuedBeforeAreRecycledOnceOnRelease() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        receive(channel, 0, 0, "first");
        Buffer outOfOrder = filled(channel.requestBuffer(), "third");
        channel.onBuffer(outOfOrder, 2, 0, false);

        assertTrue(outOfOrder.isRecycled(), "the out-of-order buffer is dropped at once");
        assertEquals(1, channel.availableBuffers(), "the dropped exclusive buffer is back with its channel");
        ShuffleException error = assertThrows(ShuffleException.class, () -> RemoteChannels.nextBuffer(channel));
        assertTrue(error.getMessage().contains("expected buffer 1 but received 2"), error.getMessage());
        assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.toString()), error.getMessage());
        assertThrows(ShuffleException.class, () -> gate.pollNext(), "the gate reports it too, and keeps reporting");

        RemoteChannels.release(channel);
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments(),
                "the queued buffer and the idle one went back to the global pool exactly once");
    }

    // RIC-3
    @Test
    void buffersArrivingWhileTheChannelIsReleased_thousandsOfTimes_endRecycledNeverQueued() throws Exception {
        rounds(2000, 4, 0, (channel, pool, round) -> {
            CyclicBarrier start = new CyclicBarrier(2);
            Future<Integer> network = threads.submit(() -> {
                start.await();
                int delivered = 0;
                for (Buffer buffer = channel.requestBuffer(); buffer != null; buffer = channel.requestBuffer()) {
                    channel.onBuffer(filled(buffer, "x"), delivered++, 0, false);
                }
                return delivered;
            });
            Future<?> release = threads.submit(() -> {
                start.await();
                RemoteChannels.release(channel);
                return null;
            });
            release.get();
            int delivered = network.get();

            assertTrue(delivered <= 4, "round " + round + ": " + delivered + " buffers from a channel that owns 4");
            assertNull(RemoteChannels.nextBuffer(channel), "round " + round + ": nothing queued after release");
            assertEquals(0, channel.availableBuffers());
            assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments(),
                    "round " + round + ": every exclusive buffer back in the global pool");
        });
    }

    // BUF-1 over a remote channel: the second recycle of a handed-out buffer names the channel and
    // leaves the channel's credit alone
    @Test
    void handedOutBufferRecycledTwice_failsNamingTheChannel_andTheExclusiveBufferComesBackOnce() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, 0, "only");
        io.sluice.api.BufferOrEvent element = gate.pollNext().orElseThrow();

        element.recycle();
        IllegalStateException second = assertThrows(IllegalStateException.class, element::recycle);

        assertTrue(second.getMessage().contains("channel 0"), second.getMessage());
        assertEquals(2, channel.availableBuffers(), "the exclusive buffer came back once");
    }

    // Events come without credit, so a channel holds at most
    // MAX_QUEUED_EVENTS of them unread; one more fails the channel (a consumer that does not read its events)
    @Test
    void eventsTheConsumerDoesNotRead_beyondTheLimit_failTheChannel_andTheyAreRecycled() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        int limit = io.sluice.api.ResultPartitionWriter.MAX_QUEUED_EVENTS;
        List<Buffer> events = new ArrayList<>();
        for (int i = 0; i <= limit; i++) {
            Buffer event = io.sluice.netty.event.EventSerializer.userEvent(java.nio.ByteBuffer.allocate(4));
            events.add(event);
            channel.onBuffer(event, i, 0, (i & 1) != 0);
        }

        ShuffleException error = assertThrows(ShuffleException.class, () -> RemoteChannels.nextBuffer(channel));
        assertTrue(error.getMessage().contains("not reading"), error.getMessage());
        assertTrue(error.getMessage().contains(String.valueOf(limit)), error.getMessage());
        assertTrue(events.get(limit).isRecycled(), "the event beyond the limit was dropped");
        RemoteChannels.release(channel);
        for (Buffer event : events) {
            assertTrue(event.isRecycled());
        }
    }

    // RIC-4
    @Test
    void partitionNotFound_retriesAfterDoublingDelaysUpToTheMax_thenFailsNamingThePartition() throws Exception {
        channels.backoff(Duration.ofMillis(5), Duration.ofMillis(20));
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        for (int i = 0; i < 3; i++) {
            channel.onFailedPartitionRequest();
            assertFalse(channel.hasError(), "retry " + (i + 1) + " is scheduled, not a failure");
        }
        assertEquals(List.of(5L, 10L, 20L), timer.delaysMillis());

        channel.onFailedPartitionRequest();

        assertEquals(3, timer.delaysMillis().size(), "no retry after the maximum delay was used");
        PartitionNotFoundException error = assertThrows(PartitionNotFoundException.class,
                () -> RemoteChannels.nextBuffer(channel));
        assertEquals(channel.partitionId(), error.partitionId());
        assertTrue(error.getMessage().contains("3 retries"), error.getMessage());
    }

    // RIC-4
    @Test
    void zeroBackoff_theFirstNotFoundFailsAtOnce() throws Exception {
        channels.backoff(Duration.ZERO, Duration.ZERO);
        RemoteInputChannel channel = RemoteChannels.channel(channels.gate(1, 2, 0), 0);

        channel.onFailedPartitionRequest();

        assertEquals(List.of(), timer.delaysMillis());
        PartitionNotFoundException error = assertThrows(PartitionNotFoundException.class,
                () -> RemoteChannels.nextBuffer(channel));
        assertEquals(channel.partitionId(), error.partitionId());
    }

    // RIC-6
    @Test
    void producerFailure_surfacesAsProducerFailedException_behindNoQueuedData() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, 0, "data before the failure");

        channel.onError(new ProducerFailedException("producer p failed: disk full"));

        ProducerFailedException error = assertThrows(ProducerFailedException.class, () -> gate.pollNext());
        assertEquals("producer p failed: disk full", error.getMessage());
    }

    // Error messages name the channel's partition, subpartition and producer (docs/contract.md section 6)
    @Test
    void describe_namesTheOwnerThePartitionTheSubpartitionAndTheProducer() throws Exception {
        SingleInputGate gate = channels.gate(2, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 1);

        assertEquals("channel 1 of test-consumer (partition " + channel.partitionId() + ", subpartition 0, producer "
                + RemoteChannels.PRODUCER + " at " + RemoteChannels.NOWHERE.address() + ")", gate.describeChannel(1));
    }

    // RIC-8, RIC-9
    @Test
    void backlogAboveTheFloatingSupply_takesWhatThePoolHas_waitsOnce_andRecyclingFollowsTheRules() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 14);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        LocalBufferPool pool = channels.floatingPool(gate);
        Buffer heldFloatingA = pool.requestBuffer();
        Buffer heldFloatingB = pool.requestBuffer();
        Buffer heldExclusive = channel.requestBuffer();

        channel.onSenderBacklog(14);
        assertBuffers(channel, pool, 13, 16, 0, true);
        assertEquals(12, channel.unannouncedCredit(), "the 12 floating buffers the pool had");

        channel.onSenderBacklog(16);
        assertBuffers(channel, pool, 13, 18, 0, true);
        assertEquals(12, channel.unannouncedCredit(), "a waiting channel requests nothing more");

        heldExclusive.recycleBuffer();
        assertBuffers(channel, pool, 14, 18, 0, true);
        assertEquals(13, channel.unannouncedCredit(), "an exclusive buffer comes back to its channel");

        heldFloatingA.recycleBuffer();
        assertBuffers(channel, pool, 15, 18, 0, true);
        assertEquals(14, channel.unannouncedCredit(), "a floating buffer goes to the waiting channel");

        channel.onSenderBacklog(13);
        assertBuffers(channel, pool, 15, 15, 0, true);

        heldFloatingB.recycleBuffer();
        assertBuffers(channel, pool, 15, 15, 1, false);
        assertEquals(14, channel.unannouncedCredit(), "a channel that has enough leaves the buffer to the pool");

        channel.onSenderBacklog(15);
        assertBuffers(channel, pool, 16, 17, 0, true);
        assertEquals(15, channel.unannouncedCredit());
    }

    // RIC-10
    @ParameterizedTest(name = "backlog 12, then {0}")
    @ValueSource(ints = {12, 10})
    void availableAtOrAboveRequired_recycledFloatingGoesToThePool_recycledExclusivePushesASurplusFloatingBack(
            int laterBacklog) throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 14);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        LocalBufferPool pool = channels.floatingPool(gate);
        Buffer heldFloating = pool.requestBuffer();
        Buffer heldExclusive = channel.requestBuffer();
        channel.onSenderBacklog(12);
        assertBuffers(channel, pool, 14, 14, 0, false);

        channel.onSenderBacklog(laterBacklog);
        int required = laterBacklog + 2;
        assertBuffers(channel, pool, 14, required, 0, false);

        heldExclusive.recycleBuffer();
        assertBuffers(channel, pool, 14, required, 1, false);
        heldFloating.recycleBuffer();
        assertBuffers(channel, pool, 14, required, 2, false);
        assertEquals(13, channel.unannouncedCredit(), "the swap of an exclusive for a floating buffer adds no credit");
    }

    // RIC-11
    @Test
    void threeWaitingChannels_threeFloatingBuffersRecycled_eachChannelGetsExactlyOne() throws Exception {
        SingleInputGate gate = channels.gate(3, 2, 3);
        LocalBufferPool pool = channels.floatingPool(gate);
        List<Buffer> exhausted = List.of(pool.requestBuffer(), pool.requestBuffer(), pool.requestBuffer());
        for (int i = 0; i < 3; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            channel.onSenderBacklog(8);
            assertTrue(channel.isWaitingForFloatingBuffers(), "channel " + i + " waits for the pool");
        }

        for (Buffer buffer : exhausted) {
            buffer.recycleBuffer();
        }

        for (int i = 0; i < 3; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            assertEquals(3, channel.availableBuffers(), "channel " + i + ": 2 exclusive + 1 floating");
            assertEquals(1, channel.unannouncedCredit(), "channel " + i);
            assertTrue(channel.isWaitingForFloatingBuffers(), "channel " + i + " still needs more");
        }
        assertEquals(0, pool.getNumberOfAvailableMemorySegments());
    }

    // RIC-13
    @Test
    void backlogUpdatesRacingRelease_channelEndsEmpty_exclusiveInTheGlobalPool_floatingInTheGatePool()
            throws Exception {
        rounds(200, 2, 128, (channel, pool, round) -> {
            runTogether(() -> {
                for (int backlog = 1; backlog <= 128; backlog++) {
                    channel.onSenderBacklog(backlog);
                }
            }, () -> RemoteChannels.release(channel));

            assertHoldsNothingAndAllIsAccountedFor(channel, pool, "round " + round);
        });
    }

    // RIC-13
    @Test
    void recyclingInRandomOrderRacingRelease_channelEndsEmpty_allBuffersAccountedFor() throws Exception {
        Random random = new Random(42);
        rounds(200, 2, 128, (channel, pool, round) -> {
            channel.onSenderBacklog(128);
            List<Buffer> decoded = takeAll(channel);
            assertEquals(130, decoded.size(), "2 exclusive + 128 floating");
            Collections.shuffle(decoded, random);

            runTogether(() -> decoded.forEach(Buffer::recycleBuffer), () -> RemoteChannels.release(channel));

            assertHoldsNothingAndAllIsAccountedFor(channel, pool, "round " + round);
        });
    }

    // RIC-13
    @Test
    void backlogUpdatesRacingRecycling_withoutRelease_endWithAvailableEqualToRequired() throws Exception {
        Random random = new Random(7);
        rounds(200, 2, 128, (channel, pool, round) -> {
            List<Buffer> held = takeAll(channel);
            for (int i = 0; i < 128; i++) {
                held.add(pool.requestBuffer());
            }
            Collections.shuffle(held, random);

            runTogether(() -> {
                for (int backlog = 1; backlog <= 128; backlog++) {
                    channel.onSenderBacklog(backlog);
                }
            }, () -> held.forEach(Buffer::recycleBuffer));

            assertEquals(130, channel.requiredBuffers(), "round " + round);
            assertEquals(130, channel.availableBuffers(), "round " + round + ": every buffer came to the channel");
            assertEquals(0, pool.getNumberOfAvailableMemorySegments(), "round " + round);
        });
    }

    // RIC-14
    @Test
    void ownRequestsAndRecyclesRacingOutsideUseOfThePoolAndRelease_noDeadlockNoLeak() throws Exception {
        rounds(1000, 2, 8, (channel, pool, round) -> {
            Random random = new Random(round);
            runTogether(() -> {
                // The event loop: decode into the channel's buffers and announce backlogs.
                int sequenceNumber = 0;
                for (int i = 0; i < 20; i++) {
                    Buffer buffer = channel.requestBuffer();
                    if (buffer != null) {
                        channel.onBuffer(filled(buffer, "r"), sequenceNumber++, random.nextInt(10),
                                false);
                    } else {
                        channel.onSenderBacklog(random.nextInt(10));
                    }
                }
            }, () -> {
                // Someone else using the gate's floating pool.
                for (int i = 0; i < 20; i++) {
                    Buffer buffer = pool.requestBuffer();
                    if (buffer != null) {
                        buffer.recycleBuffer();
                    }
                }
            }, () -> {
                // The consumer: read and recycle, racing the release.
                for (int i = 0; i < 20; i++) {
                    Buffer buffer = RemoteChannels.nextBuffer(channel);
                    if (buffer != null) {
                        buffer.recycleBuffer();
                    }
                }
            }, () -> RemoteChannels.release(channel));

            assertHoldsNothingAndAllIsAccountedFor(channel, pool, "round " + round);
        });
    }

    // RIC-17, RIC-18 (counters of received buffers)
    @Test
    void priorityEvent_overtakesQueuedBuffers_keepingItsOwnSequenceNumber() throws Exception {
        SingleInputGate gate = channels.gate(1, 4, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        receive(channel, 0, 0, "b0");
        receive(channel, 1, 0, "b1");
        byte[] event = "priority".getBytes(StandardCharsets.UTF_8);
        channel.onBuffer(new Buffer(MemorySegment.wrap(event), BufferRecycler.DISCARD, false, event.length), 2, 0,
                true);
        receive(channel, 3, 0, "b3");
        receive(channel, 4, 0, "b4");

        List<String> order = new ArrayList<>();
        for (Buffer buffer = RemoteChannels.nextBuffer(channel); buffer != null;
             buffer = RemoteChannels.nextBuffer(channel)) {
            order.add((buffer.isBuffer() ? "" : "event ") + text(buffer));
            buffer.recycleBuffer();
        }
        assertEquals(List.of("event priority", "b0", "b1", "b3", "b4"), order);
        assertFalse(channel.hasError(), "the sequence 0..4 has no gap");
        assertEquals(5, channels.metrics().buffersReceived());
        assertEquals(4 * 2 + event.length, channels.metrics().bytesReceived());
    }

    // docs/contract.md: BufferOrEvent.isPriority() and the priority future, for a remote channel's priority frame
    @Test
    void priorityEventFrame_reachesTheEngineFlagged_aheadOfEarlierBuffers() throws Exception {
        SingleInputGate gate = channels.gate(1, 4, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, 0, "b0");
        receive(channel, 1, 0, "b1");
        assertFalse(gate.priorityEventAvailableFuture().isDone());

        channel.onBuffer(EventSerializer.userEvent(ByteBuffer.wrap("urgent".getBytes(StandardCharsets.UTF_8))), 2, 0,
                true);
        channel.onBuffer(EventSerializer.userEvent(ByteBuffer.wrap("plain".getBytes(StandardCharsets.UTF_8))), 3, 0,
                false);

        assertTrue(gate.priorityEventAvailableFuture().isDone());
        List<String> order = new ArrayList<>();
        for (Optional<BufferOrEvent> next = gate.pollNext(); next.isPresent(); next = gate.pollNext()) {
            BufferOrEvent element = next.get();
            byte[] bytes = new byte[element.data().remaining()];
            element.data().get(bytes);
            order.add((element.isPriority() ? "priority " : element.isEvent() ? "event " : "")
                    + new String(bytes, StandardCharsets.UTF_8));
            element.recycle();
            assertFalse(gate.priorityEventAvailableFuture().isDone(), "the only priority event was taken");
        }
        assertEquals(List.of("priority urgent", "b0", "b1", "event plain"), order);
        RemoteChannels.release(channel);
    }

    // CH-2, MSG-5 (the channel's empty-buffer path)
    @Test
    void emptyBuffer_advancesTheSequenceAndAnnouncesItsBacklog_withoutTakingABuffer() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 4);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        channel.onEmptyBuffer(0, 3);
        assertEquals(5, channel.requiredBuffers(), "backlog 3 + 2 exclusive, from the empty buffer");
        assertEquals(5, channel.availableBuffers(), "3 floating buffers borrowed for the backlog");
        receive(channel, 1, 3, "after the empty one");

        assertFalse(channel.hasError());
        Buffer next = RemoteChannels.nextBuffer(channel);
        assertEquals("after the empty one", text(next));
        next.recycleBuffer();

        channel.onEmptyBuffer(5, 0);
        ShuffleException error = assertThrows(ShuffleException.class, () -> RemoteChannels.nextBuffer(channel));
        assertTrue(error.getMessage().contains("expected buffer 2 but received 5"), error.getMessage());
    }

    // CH-9 (the channel's part), RIC-3
    @Test
    void releasedChannel_handsOutNoBuffer_andRecyclesWhatStillArrives() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 4);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        Buffer decodedBeforeRelease = filled(channel.requestBuffer(), "late");

        RemoteChannels.release(channel);
        channel.onBuffer(decodedBeforeRelease, 0, 5, false);

        assertNull(channel.requestBuffer(), "no buffer for the decoder after release");
        assertTrue(decodedBeforeRelease.isRecycled());
        assertNull(RemoteChannels.nextBuffer(channel));
        assertFalse(channel.hasError(), "data for a released channel is no error");
        assertEquals(0, channels.floatingPool(gate).bestEffortGetNumOfUsedBuffers(),
                "the backlog of a late buffer borrows nothing");
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments()
                + channels.floatingPool(gate).getNumberOfAvailableMemorySegments());
    }

    // ------------------------------------------------------------------------------------------------------------

    /** Decoder's part of a data BufferResponse: fill one of the channel's buffers and hand it over. */
    private static void receive(RemoteInputChannel channel, int sequenceNumber, int backlog, String payload) {
        Buffer buffer = channel.requestBuffer();
        assertNotNull(buffer, "the channel has a buffer for sequence number " + sequenceNumber);
        channel.onBuffer(filled(buffer, payload), sequenceNumber, backlog, false);
    }

    private static Buffer filled(Buffer buffer, String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        buffer.getMemorySegment().put(0, bytes, 0, bytes.length);
        buffer.setSize(bytes.length);
        return buffer;
    }

    private static String text(Buffer buffer) {
        byte[] bytes = new byte[buffer.readableBytes()];
        buffer.getNioBufferReadable().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Every buffer the channel has for the decoder, floating ones first. */
    private static List<Buffer> takeAll(RemoteInputChannel channel) {
        List<Buffer> taken = new ArrayList<>();
        for (Buffer buffer = channel.requestBuffer(); buffer != null; buffer = channel.requestBuffer()) {
            taken.add(buffer);
        }
        return taken;
    }

    private static void assertBuffers(RemoteInputChannel channel, LocalBufferPool pool, int available, int required,
                                      int idleInPool, boolean waiting) {
        assertEquals(available, channel.availableBuffers(), "buffers available in the channel");
        assertEquals(required, channel.requiredBuffers(), "buffers required by the channel");
        assertEquals(idleInPool, pool.getNumberOfAvailableMemorySegments(), "buffers idle in the floating pool");
        assertEquals(waiting, channel.isWaitingForFloatingBuffers(), "channel waits for a floating buffer");
    }

    /** The released channel holds nothing; exclusive segments are in the global pool, floating ones in the gate's. */
    private void assertHoldsNothingAndAllIsAccountedFor(RemoteInputChannel channel, LocalBufferPool pool, String when)
            throws Exception {
        assertEquals(0, channel.availableBuffers(), when + ": buffers left in the channel");
        assertNull(RemoteChannels.nextBuffer(channel), when + ": buffers left queued");
        assertEquals(0, pool.bestEffortGetNumOfUsedBuffers(), when + ": floating buffers still out");
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments()
                + pool.getNumberOfAvailableMemorySegments(), when + ": segments unaccounted for");
    }

    /** Runs {@code body} {@code count} times, each on the one channel of a new gate, closed afterwards. */
    private void rounds(int count, int exclusive, int floating, Round body) throws Exception {
        for (int round = 0; round < count; round++) {
            SingleInputGate gate = channels.gate(1, exclusive, floating);
            body.run(RemoteChannels.channel(gate, 0), channels.floatingPool(gate), round);
            gate.close();
        }
    }

    /** One round of a race test. */
    @FunctionalInterface
    private interface Round {
        void run(RemoteInputChannel channel, LocalBufferPool floatingPool, int round) throws Exception;
    }

    /** Runs the actions on separate threads, released at the same moment; rethrows the first failure. */
    private void runTogether(ThrowingRunnable... actions) throws Exception {
        CyclicBarrier start = new CyclicBarrier(actions.length);
        List<Future<Void>> running = new ArrayList<>();
        for (ThrowingRunnable action : actions) {
            Callable<Void> task = () -> {
                start.await();
                action.run();
                return null;
            };
            running.add(threads.submit(task));
        }
        for (Future<Void> future : running) {
            future.get(30, TimeUnit.SECONDS);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
