package io.sluice.tests.chaos;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.api.TransportException;

import java.util.Set;

/**
 * The documented failures that the faults which hit a run can explain, per task. A task no fault reached must
 * complete; a task some fault reached may still complete (the fault came too late to matter) or fail with one of
 * these types, thrown as such (not wrapped):
 * <ul>
 *   <li>a connection from the consumer's environment to a producer's closed or reset: {@link TransportException};</li>
 *   <li>a producer failed: {@link ProducerFailedException}, or {@link PartitionNotFoundException} when the
 *       consumer asked after the release;</li>
 *   <li>a producer's environment closed: those, or {@link TransportException} (its server went away);</li>
 *   <li>the consumer's own gate or environment closed: a {@link ShuffleException};</li>
 *   <li>the producer's own environment closed: a {@link ShuffleException} from the writer.</li>
 * </ul>
 * Stateless apart from its inputs; any thread.
 */
final class ExpectedFailures {

    private final ChaosScenario scenario;
    private final Set<Fault> fired;

    ExpectedFailures(ChaosScenario scenario, Set<Fault> fired) {
        this.scenario = scenario;
        this.fired = fired;
    }

    /** @return why consumer {@code c} may fail with {@code error}, or null when nothing that hit explains it */
    String consumerExplanation(int c, Throwable error) {
        int env = scenario.consumerEnvironment()[c];
        for (Fault fault : fired) {
            switch (fault.kind()) {
                case CONNECTION_CLOSE, CONNECTION_RESET -> {
                    if (fault.actor() == env && hostsProducer(fault.target()) && error instanceof TransportException) {
                        return fault.toString();
                    }
                }
                case PRODUCER_FAIL -> {
                    if (error instanceof ProducerFailedException || error instanceof PartitionNotFoundException) {
                        return fault.toString();
                    }
                }
                case PRODUCER_ENVIRONMENT_CLOSE, CONSUMER_ENVIRONMENT_CLOSE -> {
                    int closed = environmentOf(fault);
                    if (closed == env && closedGateError(error)) {
                        return fault.toString();
                    }
                    if (hostsProducer(closed) && (error instanceof ProducerFailedException
                            || error instanceof PartitionNotFoundException || error instanceof TransportException)) {
                        return fault.toString();
                    }
                }
                case GATE_CLOSE -> {
                    if (fault.actor() == c && closedGateError(error)) {
                        return fault.toString();
                    }
                }
                default -> {
                }
            }
        }
        return null;
    }

    /** @return why producer {@code p} may fail with {@code error}, or null when nothing that hit explains it */
    String producerExplanation(int p, Throwable error) {
        int env = scenario.producerEnvironment()[p];
        for (Fault fault : fired) {
            boolean environmentClose = fault.kind() == FaultKind.PRODUCER_ENVIRONMENT_CLOSE
                    || fault.kind() == FaultKind.CONSUMER_ENVIRONMENT_CLOSE;
            if (environmentClose && environmentOf(fault) == env && error instanceof ShuffleException) {
                return fault.toString();
            }
        }
        return null;
    }

    private static boolean closedGateError(Throwable error) {
        return error instanceof ShuffleException;
    }

    private int environmentOf(Fault fault) {
        return fault.kind() == FaultKind.PRODUCER_ENVIRONMENT_CLOSE
                ? scenario.producerEnvironment()[fault.actor()]
                : scenario.consumerEnvironment()[fault.actor()];
    }

    private boolean hostsProducer(int env) {
        for (int e : scenario.producerEnvironment()) {
            if (e == env) {
                return true;
            }
        }
        return false;
    }
}
