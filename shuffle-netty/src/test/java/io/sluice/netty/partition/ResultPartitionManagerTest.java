package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The registry readers find partitions in, including readers that come before their producer
 * (docs/behaviours.md section 5, RPM-*).
 */
class ResultPartitionManagerTest {

    private final PartitionFixture fixture = new PartitionFixture();
    private final ResultPartitionManager manager = fixture.manager();
    private final RecordingAvailabilityListener listener = new RecordingAvailabilityListener();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    /** Remembers the partitions it was given. */
    private static final class RecordingRegistrationListener implements PartitionRegistrationListener {
        private final List<RegisteredPartition> registered = new ArrayList<>();

        @Override
        public void onPartitionRegistered(RegisteredPartition partition) {
            registered.add(partition);
        }
    }

    // RPM-1
    @Test
    void viewOfAnUnregisteredPartition_isNotFound_withItsId() {
        ResultPartitionId unknown = ResultPartitionId.random();

        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class,
                () -> manager.createSubpartitionView(unknown, 0, listener));

        assertEquals(unknown, notFound.partitionId());
        assertTrue(notFound.getMessage().contains(unknown.toString()), notFound.getMessage());
    }

    // RPM-1
    @Test
    void viewOfAReleasedPartition_isNotFound_withItsId() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        manager.releasePartitions(List.of(partition.partitionId()), null);

        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class,
                () -> manager.createSubpartitionView(partition.partitionId(), 0, listener));

        assertEquals(partition.partitionId(), notFound.partitionId());
        assertFalse(manager.registeredPartitionIds().contains(partition.partitionId()));
    }

    // RPM-2: a reader's listener whose event loop has terminated (its environment closing) must not fail
    // the producer's setup with RejectedExecutionException, nor keep the other waiting readers from their view
    @Test
    void listenerOnATerminatedEventLoop_doesNotFailTheRegistration_andTheOtherListenersAreStillTold()
            throws Exception {
        ResultPartition partition = fixture.newPartition().build();
        java.util.concurrent.ExecutorService terminatedLoop = java.util.concurrent.Executors.newSingleThreadExecutor();
        terminatedLoop.shutdown();
        RecordingRegistrationListener other = new RecordingRegistrationListener();
        manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 0, listener,
                registered -> terminatedLoop.execute(() -> { }));
        manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 0, new RecordingAvailabilityListener(),
                other);

        partition.setup();

        assertEquals(List.of(partition), other.registered);
        assertEquals(List.of(partition.partitionId()), List.copyOf(manager.registeredPartitionIds()));
    }

    // Once the environment's close began, a registration is refused with a ShuffleException
    @Test
    void registrationAfterShutdown_failsSetupWithShuffleException_andLeavesNothingRegisteredOrReserved()
            throws Exception {
        ResultPartition partition = fixture.newPartition().build();
        manager.shutdown(new IllegalStateException("closing"));

        ShuffleException error = assertThrows(ShuffleException.class, partition::setup);

        assertTrue(error.getMessage().contains("environment is closed"), error.getMessage());
        assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
        assertTrue(manager.registeredPartitionIds().isEmpty());
        io.sluice.netty.testing.MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
    }

    // RPM-2
    @Test
    void requestBeforeRegistration_parksTheListener_andRegistrationHandsItThePartition() throws Exception {
        ResultPartition partition = fixture.newPartition().build();
        RecordingRegistrationListener waiting = new RecordingRegistrationListener();

        ResultSubpartitionView view = manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 0,
                listener, waiting);

        assertNull(view, "no view before the producer registers");
        assertTrue(waiting.registered.isEmpty());
        partition.setup();
        assertEquals(List.of(partition), waiting.registered);
        assertFalse(manager.removeRegistrationListener(partition.partitionId(), waiting),
                "the listener was removed when it was told");
        assertNotNull(manager.createSubpartitionView(partition.partitionId(), 0, listener),
                "the listener can now take its view");
    }

    // RPM-2
    @Test
    void requestAfterRegistration_getsItsViewAtOnce() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        RecordingRegistrationListener waiting = new RecordingRegistrationListener();

        ResultSubpartitionView view = manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 0,
                listener, waiting);

        assertNotNull(view);
        assertTrue(waiting.registered.isEmpty());
    }

    // RPM-3
    @Test
    void listenerRemovedAfterItsTimeout_isNotTold_othersStillAre() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).build();
        RecordingRegistrationListener timedOut = new RecordingRegistrationListener();
        RecordingRegistrationListener patient = new RecordingRegistrationListener();
        assertNull(manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 0, listener, timedOut));
        assertNull(manager.createSubpartitionViewOrRegisterListener(partition.partitionId(), 1,
                new RecordingAvailabilityListener(), patient));

        assertTrue(manager.removeRegistrationListener(partition.partitionId(), timedOut));
        partition.setup();

        assertTrue(timedOut.registered.isEmpty());
        assertEquals(List.of(partition), patient.registered);
    }

    @Test
    void registeringTheSameIdTwice_isRejected() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        ResultPartition twin = fixture.newPartition().id(partition.partitionId()).build();

        IllegalStateException duplicate = assertThrows(IllegalStateException.class,
                () -> manager.registerPartition(twin));

        assertTrue(duplicate.getMessage().contains(partition.partitionId().toString()), duplicate.getMessage());
        assertEquals(Set.of(partition.partitionId()), Set.copyOf(manager.registeredPartitionIds()));
    }

    @Test
    void shutdown_releasesEveryPartition_refusesNewOnes_andFailsWaitingRequests() throws Exception {
        ResultPartition first = fixture.setUpPartition(1);
        ResultPartition second = fixture.setUpPartition(1);
        ResultPartition late = fixture.newPartition().build();
        IllegalStateException cause = new IllegalStateException("environment closing");

        manager.shutdown(cause);

        assertTrue(first.isReleased() && second.isReleased());
        assertTrue(manager.registeredPartitionIds().isEmpty());
        assertThrows(ShuffleException.class, late::setup);
        assertThrows(PartitionNotFoundException.class, () -> manager.createSubpartitionViewOrRegisterListener(
                late.partitionId(), 0, listener, partition -> { }));
    }

    @Test
    void releasePartitions_ignoresUnknownIds_andReleasesTheOthersWithTheCause() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 0, listener);
        IllegalStateException cause = new IllegalStateException("job cancelled");

        manager.releasePartitions(List.of(ResultPartitionId.random(), partition.partitionId()), cause);

        assertTrue(partition.isReleased());
        assertSame(cause, view.getFailureCause());
    }

    // SIG-5 (the producer's end): task events reach the partition's listener
    @Test
    void publishTaskEvent_reachesTheProducersListener_andReportsWhenNobodyListens() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        ByteBuffer event = ByteBuffer.wrap("ping".getBytes(StandardCharsets.UTF_8));
        assertFalse(manager.publishTaskEvent(partition.partitionId(), event.duplicate()), "no listener yet");
        List<String> received = new ArrayList<>();
        partition.onTaskEvent(payload -> received.add(StandardCharsets.UTF_8.decode(payload).toString()));

        assertTrue(manager.publishTaskEvent(partition.partitionId(), event.duplicate()));
        assertFalse(manager.publishTaskEvent(ResultPartitionId.random(), event.duplicate()));

        assertEquals(List.of("ping"), received);
    }
}
