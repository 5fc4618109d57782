package io.sluice.netty.gate;

import io.sluice.api.ResultPartitionId;
import io.sluice.netty.testing.PartitionFixture;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds gates of local channels over a {@link PartitionFixture}'s partitions, the way the environment's channel
 * factory does for producers in the same environment, and counts how often each gate's close callback ran.
 *
 * <p>Test thread only.
 */
final class LocalGates {

    /** Short enough for tests that wait for a late partition, long enough not to spin. */
    static final Duration INITIAL_BACKOFF = Duration.ofMillis(1);
    static final Duration MAX_BACKOFF = Duration.ofMillis(8);

    private final PartitionFixture fixture;
    private final AtomicInteger closeCallbacks = new AtomicInteger();

    LocalGates(PartitionFixture fixture) {
        this.fixture = fixture;
    }

    /** A gate reading subpartition {@code subpartition} of each partition, one channel each; not set up. */
    SingleInputGate gate(int subpartition, ResultPartitionId... partitions) {
        return gate(fixture.scheduler(), INITIAL_BACKOFF, MAX_BACKOFF, subpartition, partitions);
    }

    /** Like {@link #gate(int, ResultPartitionId...)} with the given retry scheduler and backoff. */
    SingleInputGate gate(ScheduledExecutorService retryScheduler, Duration initialBackoff, Duration maxBackoff,
                         int subpartition, ResultPartitionId... partitions) {
        return gate(retryScheduler, initialBackoff, maxBackoff, Duration.ZERO, subpartition, partitions);
    }

    /** Like {@link #gate(int, ResultPartitionId...)}, its getNext() spinning up to {@code spinWait} for data. */
    SingleInputGate spinningGate(Duration spinWait, int subpartition, ResultPartitionId... partitions) {
        return gate(fixture.scheduler(), INITIAL_BACKOFF, MAX_BACKOFF, spinWait, subpartition, partitions);
    }

    private SingleInputGate gate(ScheduledExecutorService retryScheduler, Duration initialBackoff,
                                 Duration maxBackoff, Duration spinWait, int subpartition,
                                 ResultPartitionId... partitions) {
        SingleInputGate gate = new SingleInputGate("test-consumer", partitions.length,
                closed -> closeCallbacks.incrementAndGet(), Runnable::run, spinWait.toNanos());
        for (int i = 0; i < partitions.length; i++) {
            gate.setChannel(new LocalInputChannel(gate, i, partitions[i], subpartition, fixture.manager(),
                    retryScheduler, new PartitionRequestBackoff(initialBackoff, maxBackoff)));
        }
        return gate;
    }

    /** A set-up gate over {@code partitions}. */
    SingleInputGate setUpGate(int subpartition, ResultPartitionId... partitions) throws Exception {
        SingleInputGate gate = gate(subpartition, partitions);
        gate.setup();
        return gate;
    }

    /** How many times a gate of this builder told the environment that it closed. */
    int closeCallbacks() {
        return closeCallbacks.get();
    }
}
