package io.sluice.tests.chaos;

import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;

import java.util.List;
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
 *   <li>the consumer's own gate or environment closed: a {@link ShuffleException} (what a closed gate's
 *       {@code getNext} throws, whether it was waiting or came later); so also a stalled reader whose gate is
 *       closed when it may go on; or, for a consumer that creates its gate after its environment closed, the
 *       {@link IllegalStateException} "environment ... is closed";</li>
 *   <li>the producer's own environment closed: a {@link ShuffleException} from the writer;</li>
 *   <li>a consumer failed, and then every consumer ended or the job stopped making progress, while the producer
 *       still ran (it may wait for a reader that will never come): the run releases its partition, as an engine
 *       cancels a failed region; the writer throws a {@link ShuffleException}, and so may a consumer still reading
 *       that partition, naming it;</li>
 *   <li>a blocking partition's files damaged between its finish and its read: a {@link CorruptDataException}
 *       (a failed checksum, a span past the end of the data file, a count that does not add up) whose message
 *       names the partition, and nothing else; the consumer must never get a wrong record or a short stream
 *       instead, which the record checks catch;</li>
 *   <li>files that make the blocking I/O thread of the producer's environment fail: a {@link ShuffleException} for
 *       any reader of that environment's blocking partitions, naming the cause (the thread's {@link OutOfMemoryError}) or the
 *       partition (when a checksum refuses the forged index entry first).</li>
 *   <li>a stalled reader holds every read segment of its producers' environment (a read memory smaller than the
 *       readers): a consumer with a reader that waited out {@code shuffle.blocking.read-memory-timeout} (another
 *       consumer, or the stalled one's own other channels) fails with a {@link ShuffleException} naming that
 *       option.</li>
 * </ul>
 * Stateless apart from its inputs; any thread.
 */
final class ExpectedFailures {

    /** What names a reader that waited out the read-memory timeout for segments the stalled consumer holds. */
    private static final String READ_MEMORY_TIMEOUT = ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT.key();

    private final ChaosScenario scenario;
    private final Set<Fault> fired;
    private final List<ResultPartitionId> partitions;
    private final Set<Integer> orphaned;

    /**
     * @param scenario   the run's scenario
     * @param fired      the faults that hit
     * @param partitions each producer's partition, by producer index
     * @param orphaned   producers whose partitions the run's failover released
     */
    ExpectedFailures(ChaosScenario scenario, Set<Fault> fired, List<ResultPartitionId> partitions,
                     Set<Integer> orphaned) {
        this.scenario = scenario;
        this.fired = fired;
        this.partitions = partitions;
        this.orphaned = orphaned;
    }

    /** @return why consumer {@code c} may fail with {@code error}, or null when nothing that hit explains it */
    String consumerExplanation(int c, Throwable error) {
        for (int p : orphaned) {
            if (error instanceof ShuffleException && mentions(error, partitions.get(p).toString())) {
                return "producer " + p + "'s partition was released by the run's failover after a consumer failed";
            }
        }
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
                    if (closed == env && (closedGateError(error) || closedEnvironmentError(error))) {
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
                case READER_STALL -> {
                    if (fault.actor() == c && fault.concurrent() && closedGateError(error)) {
                        return fault.toString();
                    }
                    if (error instanceof ShuffleException && mentions(error, READ_MEMORY_TIMEOUT)) {
                        return fault.toString();
                    }
                }
                case CORRUPT_DATA_BIT, CORRUPT_INDEX_ENTRY, TRUNCATE_DATA, CORRUPT_COMPRESSED_BLOCK -> {
                    if (error instanceof CorruptDataException
                            && mentions(error, partitions.get(fault.actor()).toString())) {
                        return fault.toString();
                    }
                }
                case BLOCKING_IO_ERROR -> {
                    if (error instanceof ShuffleException && (mentions(error, OutOfMemoryError.class.getSimpleName())
                            || mentions(error, partitions.get(fault.actor()).toString()))) {
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
        if (orphaned.contains(p) && error instanceof ShuffleException) {
            return "its partition was released by the run's failover after a consumer failed";
        }
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

    /** @return whether the error or one of its causes has {@code text} in its class name or message */
    private static boolean mentions(Throwable error, String text) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.toString().contains(text)) {
                return true;
            }
        }
        return false;
    }

    private static boolean closedGateError(Throwable error) {
        return error instanceof ShuffleException;
    }

    /**
     * A consumer that creates its gate after its environment was closed: the contract's usage error, an
     * {@link IllegalStateException} saying the environment is closed.
     */
    private static boolean closedEnvironmentError(Throwable error) {
        return error instanceof IllegalStateException && error.getMessage() != null
                && error.getMessage().startsWith("environment ") && error.getMessage().endsWith(" is closed");
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
