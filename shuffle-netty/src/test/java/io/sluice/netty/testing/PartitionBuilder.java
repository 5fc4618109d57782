package io.sluice.netty.testing;

import io.sluice.api.ResultPartitionId;
import io.sluice.netty.partition.ResultPartition;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Describes one {@link ResultPartition} of a {@link PartitionFixture}, with defaults that keep unit tests
 * deterministic: one subpartition, no automatic flush, a pool of {@code subpartitions + 1} to 64 buffers and no
 * per-subpartition cap.
 *
 * <p>Test thread only.
 */
public final class PartitionBuilder {

    /** Longer than any test: only explicit flushes (or a zero interval) make data readable. */
    public static final Duration NO_AUTOMATIC_FLUSH = Duration.ofHours(1);

    /** Default pool maximum: plenty for unit tests, small enough to show a leak at once. */
    private static final int DEFAULT_MAX_BUFFERS = 64;

    private final PartitionFixture fixture;
    private ResultPartitionId id = ResultPartitionId.random();
    private String owner = "test-producer";
    private int subpartitions = 1;
    private Duration flushInterval = NO_AUTOMATIC_FLUSH;
    private LongSupplier clock = System::nanoTime;
    private int minBuffers = -1;
    private int maxBuffers = DEFAULT_MAX_BUFFERS;
    private int maxBuffersPerSubpartition = Integer.MAX_VALUE;
    private Executor notifications = Runnable::run;

    PartitionBuilder(PartitionFixture fixture) {
        this.fixture = fixture;
    }

    public PartitionBuilder id(ResultPartitionId value) {
        this.id = value;
        return this;
    }

    public PartitionBuilder owner(String value) {
        this.owner = value;
        return this;
    }

    public PartitionBuilder subpartitions(int value) {
        this.subpartitions = value;
        return this;
    }

    /** Zero flushes after every record. */
    public PartitionBuilder flushInterval(Duration value) {
        this.flushInterval = value;
        return this;
    }

    /** The clock the partition stamps the bytes waiting for a flush with (nanoseconds); {@code System.nanoTime}. */
    public PartitionBuilder clock(LongSupplier value) {
        this.clock = value;
        return this;
    }

    /** The pool's required minimum and maximum number of buffers. */
    public PartitionBuilder buffers(int min, int max) {
        this.minBuffers = min;
        this.maxBuffers = max;
        return this;
    }

    public PartitionBuilder maxBuffersPerSubpartition(int value) {
        this.maxBuffersPerSubpartition = value;
        return this;
    }

    /** Where the partition completes availability futures and tells tracked events' outcomes; inline by default. */
    public PartitionBuilder notifications(Executor value) {
        this.notifications = value;
        return this;
    }

    /** The partition, not set up: no pool, not registered. */
    public ResultPartition build() {
        return fixture.create(this);
    }

    /** The partition, set up: it has its pool and is registered with the fixture's manager. */
    public ResultPartition setUp() throws IOException {
        ResultPartition partition = build();
        partition.setup();
        return partition;
    }

    ResultPartitionId id() {
        return id;
    }

    Executor notifications() {
        return notifications;
    }

    String owner() {
        return owner;
    }

    int subpartitions() {
        return subpartitions;
    }

    Duration flushInterval() {
        return flushInterval;
    }

    LongSupplier clock() {
        return clock;
    }

    int minBuffers() {
        return minBuffers >= 0 ? minBuffers : subpartitions + 1;
    }

    int maxBuffers() {
        return Math.max(maxBuffers, minBuffers());
    }

    int maxBuffersPerSubpartition() {
        return maxBuffersPerSubpartition;
    }
}
