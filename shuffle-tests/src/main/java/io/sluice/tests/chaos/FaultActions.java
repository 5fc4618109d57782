package io.sluice.tests.chaos;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.netty.NettyShuffleEnvironmentBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fires the task-side faults of a scenario when a producer or consumer reaches the count they are keyed to, and
 * remembers every fault that fired (the connection faults report themselves), so that a run accepts only the
 * failures that a fault which really hit can explain. Any thread; each fault fires at most once.
 */
final class FaultActions {

    private final ChaosScenario scenario;
    private final List<ShuffleEnvironment> environments;
    private final Set<Fault> fired = ConcurrentHashMap.newKeySet();
    @GuardedBy("faultThreads")
    private final List<Thread> faultThreads = new ArrayList<>();
    private final List<Throwable> errors;
    private final ReaderStall stall;

    /**
     * @param scenario     the faults to fire
     * @param environments the environments, by index
     * @param errors       where a fault's own unexpected error goes (synchronized list)
     */
    FaultActions(ChaosScenario scenario, List<ShuffleEnvironment> environments, List<Throwable> errors) {
        this.scenario = scenario;
        this.environments = environments;
        this.errors = errors;
        this.stall = ReaderStall.of(scenario);
    }

    /** A connection fault hit (called on an event loop), or an at-rest fault damaged files (the run's thread). */
    void fired(Fault fault) {
        fired.add(fault);
    }

    /** @return the faults that hit so far */
    Set<Fault> firedFaults() {
        return Set.copyOf(fired);
    }

    /**
     * Called by producer {@code producer} before it emits record {@code emitted}.
     *
     * @return true when the producer failed itself and must stop
     */
    boolean producerReached(int producer, long emitted, ResultPartitionWriter writer) {
        for (Fault fault : scenario.faults()) {
            if (fault.actor() != producer || fault.at() != emitted || !firstTime(fault)) {
                continue;
            }
            switch (fault.kind()) {
                case PRODUCER_FAIL -> {
                    fired.add(fault);
                    writer.fail(new IllegalStateException("chaos: producer " + producer + " failed after record "
                            + emitted));
                    return true;
                }
                case PRODUCER_ENVIRONMENT_CLOSE -> {
                    fired.add(fault);
                    ShuffleEnvironment environment = environments.get(scenario.producerEnvironment()[producer]);
                    close(fault, environment::close);
                }
                case MEMORY_PRESSURE -> {
                    fired.add(fault);
                    startPressure(fault);
                }
                default -> {
                }
            }
        }
        return false;
    }

    /**
     * Called by consumer {@code consumer} before it sets up its gate, when partitions are blocking: with a
     * {@link FaultKind#READER_STALL} the others wait until the stalled consumer has stopped.
     */
    void beforeGateSetup(int consumer) throws InterruptedException {
        stall.beforeGateSetup(consumer);
    }

    /** Called by consumer {@code consumer} after each record it read. */
    void consumerRead(int consumer) {
        stall.recordRead(consumer);
    }

    /** Called by consumer {@code consumer} when it ends, however. */
    void consumerEnded(int consumer) {
        stall.ended(consumer);
    }

    /**
     * Called by consumer {@code consumer} before it reads on, having read {@code read} records. A stalled reader
     * waits here until it may go on.
     *
     * @return every how many records the consumer sleeps a millisecond; 0 for never
     * @throws InterruptedException when a stalled reader is interrupted (the run's deadline passed)
     */
    int consumerReached(int consumer, long read, InputGate gate) throws InterruptedException {
        int sleepEvery = 0;
        for (Fault fault : scenario.faults()) {
            if (fault.actor() != consumer) {
                continue;
            }
            if (fault.kind() == FaultKind.SLOW_CONSUMER && read >= fault.at()) {
                fired.add(fault);
                sleepEvery = fault.amount();
            }
            if (fault.at() != read || !firstTime(fault)) {
                continue;
            }
            switch (fault.kind()) {
                case GATE_CLOSE -> {
                    fired.add(fault);
                    close(fault, gate::close);
                }
                case CONSUMER_ENVIRONMENT_CLOSE -> {
                    fired.add(fault);
                    ShuffleEnvironment environment = environments.get(scenario.consumerEnvironment()[consumer]);
                    close(fault, environment::close);
                }
                default -> {
                }
            }
        }
        if (stall.stopsAt(consumer, read) && fired.add(stall.fault())) {
            stall.stop();
            if (stall.fault().concurrent()) {
                startThread(stall.fault(), gate::close);
            }
        }
        return sleepEvery;
    }

    private boolean firstTime(Fault fault) {
        boolean taskFault = switch (fault.kind()) {
            case PRODUCER_FAIL, PRODUCER_ENVIRONMENT_CLOSE, MEMORY_PRESSURE, GATE_CLOSE,
                    CONSUMER_ENVIRONMENT_CLOSE -> true;
            default -> false;
        };
        return taskFault && !fired.contains(fault);
    }

    /** Closes on this thread, or for a concurrent fault on a thread of its own started now. */
    private void close(Fault fault, Runnable close) {
        if (fault.concurrent()) {
            startThread(fault, close);
        } else {
            close.run();
        }
    }

    private void startPressure(Fault fault) {
        ShuffleEnvironment environment = environments.get(fault.target());
        startThread(fault, new MemoryPressure(NettyShuffleEnvironmentBuilder.networkBufferPool(environment),
                fault.amount(), fault.millis()));
    }

    private void startThread(Fault fault, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                errors.add(new AssertionError(fault + " threw " + t, t));
            }
        }, "chaos-" + scenario.seed() + "-" + fault.kind().name().toLowerCase(Locale.ROOT));
        thread.setDaemon(true);
        synchronized (faultThreads) {
            faultThreads.add(thread);
        }
        thread.start();
    }

    /** @return the threads faults started so far (memory pressure, concurrent closes) */
    List<Thread> faultThreads() {
        synchronized (faultThreads) {
            return List.copyOf(faultThreads);
        }
    }
}
