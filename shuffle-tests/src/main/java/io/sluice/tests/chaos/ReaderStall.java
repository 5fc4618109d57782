package io.sluice.tests.chaos;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link FaultKind#READER_STALL} of a run: the stalled consumer sets up its gate and reads first; every other
 * consumer sets up its gate only once the stalled one has stopped (or ended), so the stalled reader's views were
 * registered first and took what the read budget gave them, as a gate that is set up and then not read does. It
 * stays stopped, holding its gate open, until the others have read a number of records together or have all ended,
 * then goes on. The others must complete meanwhile: the read budget is shared fairly by every registered reader.
 *
 * <p>Thread-safe: called by the consumers' threads. Every wait ends when its thread is interrupted (the run
 * interrupts the tasks still running at its deadline).
 */
final class ReaderStall {

    private final Fault fault;
    private final int others;
    private final AtomicLong othersRead = new AtomicLong();
    private final Object lock = new Object();
    /** The stalled consumer has stopped, or ended without stopping: the others may set up their gates. */
    @GuardedBy("lock")
    private boolean stopped;
    @GuardedBy("lock")
    private int othersEnded;

    /**
     * @param scenario the run's scenario
     * @return its stall, or one that never stops anybody
     */
    static ReaderStall of(ChaosScenario scenario) {
        for (Fault fault : scenario.faults()) {
            if (fault.kind() == FaultKind.READER_STALL) {
                return of(fault, scenario.consumers());
            }
        }
        return new ReaderStall(null, 0);
    }

    /**
     * @param fault     a {@link FaultKind#READER_STALL}
     * @param consumers consumers of the job, the stalled one included
     * @return the stall it stands for
     */
    static ReaderStall of(Fault fault, int consumers) {
        return new ReaderStall(fault, consumers - 1);
    }

    private ReaderStall(Fault fault, int others) {
        this.fault = fault;
        this.others = others;
    }

    /** @return the fault, or null when the run has no stall */
    Fault fault() {
        return fault;
    }

    /** Consumer {@code consumer}, before it sets up its gate: another than the stalled one waits for the stop. */
    void beforeGateSetup(int consumer) throws InterruptedException {
        if (fault == null || consumer == fault.actor()) {
            return;
        }
        synchronized (lock) {
            while (!stopped) {
                lock.wait();
            }
        }
    }

    /** @return whether consumer {@code consumer}, having read {@code read} records, stops here */
    boolean stopsAt(int consumer, long read) {
        return fault != null && consumer == fault.actor() && read == fault.at();
    }

    /** The stalled consumer stops: lets the others set up their gates and waits until it may go on. */
    void stop() throws InterruptedException {
        synchronized (lock) {
            stopped = true;
            lock.notifyAll();
            while (othersEnded < others && othersRead.get() < fault.amount()) {
                lock.wait();
            }
        }
    }

    /** Consumer {@code consumer} read one more record. */
    void recordRead(int consumer) {
        if (fault == null || consumer == fault.actor()) {
            return;
        }
        if (othersRead.incrementAndGet() == fault.amount()) {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    /** Consumer {@code consumer} ended, however. */
    void ended(int consumer) {
        if (fault == null) {
            return;
        }
        synchronized (lock) {
            if (consumer == fault.actor()) {
                stopped = true;
            } else {
                othersEnded++;
            }
            lock.notifyAll();
        }
    }
}
