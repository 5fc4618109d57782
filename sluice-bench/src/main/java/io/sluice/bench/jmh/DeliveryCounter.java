package io.sluice.bench.jmh;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Records delivered by the consumer threads, and a wait for "n more". Consumers publish in
 * batches (one atomic add per batch, not per record); the one waiting benchmark thread parks and
 * is unparked by the publish that reaches its goal. {@link #publish} from any consumer thread;
 * {@link #awaitMore} from one benchmark thread at a time.
 */
final class DeliveryCounter {

    /**
     * Backstop only: the publish that reaches the goal always unparks the waiter (it reads {@code goal} after its
     * add, and a goal set after that read is followed by a read of {@code delivered} that sees the add), so the wait
     * never needs a timer. A short backstop would wake the JMH thread many times a second, a thread the Flink peer
     * does not have (its main thread sleeps through the window), each wake-up taking a CPU from the data path
     * (context switches of the JMH thread in {@code ManyChannelsBenchmark} with {@code shape=4x100} show it).
     */
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final AtomicLong delivered = new AtomicLong();
    private volatile long goal = Long.MAX_VALUE;
    private volatile Thread waiter;
    private volatile Throwable failure;

    /** @param records records one consumer received since its last publish */
    void publish(long records) {
        if (delivered.addAndGet(records) >= goal) {
            Thread thread = waiter;
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }
    }

    /**
     * Ends every wait with this failure, now and later.
     *
     * @param cause why no more records will come
     */
    void fail(Throwable cause) {
        failure = cause;
        Thread thread = waiter;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /** @return records delivered so far */
    long total() {
        return delivered.get();
    }

    /**
     * Waits until {@code records} more than now have been delivered.
     *
     * @param records how many more
     * @throws IllegalStateException when a producer or consumer failed ({@link #fail})
     */
    void awaitMore(long records) {
        waiter = Thread.currentThread();
        long target = delivered.get() + records;
        goal = target;
        while (delivered.get() < target) {
            Throwable cause = failure;
            if (cause != null) {
                throw new IllegalStateException("the benchmark's data path failed: " + cause, cause);
            }
            LockSupport.parkNanos(this, PARK_NANOS);
        }
        goal = Long.MAX_VALUE;
        waiter = null;
    }
}
