package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.tests.support.RegisteredPartition;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A consumer in an environment of its own, configured unlike the fixture's (another CA, no TLS): it reads one
 * subpartition of a partition of the fixture's producer environment. {@link #close()} closes its gate and
 * environment and checks that every segment came back. Made and closed by the test thread; one reading thread.
 */
final class OutsideConsumer implements AutoCloseable {

    private final ShuffleEnvironment environment;
    private final RecordReader reader;

    private OutsideConsumer(ShuffleEnvironment environment, RecordReader reader) {
        this.environment = environment;
        this.reader = reader;
    }

    /** Creates and starts the environment, sets up a gate over {@code partition}'s subpartition 0. */
    static OutsideConsumer start(String name, ShuffleConfig config, RegisteredPartition partition) throws Exception {
        ShuffleEnvironment environment = ShuffleServiceLoader.load(config)
                .createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId(name)));
        try {
            environment.start();
            InputGate gate = environment.createInputGates(name,
                    List.of(new InputGateDeploymentDescriptor(0, List.of(partition.descriptor())))).get(0);
            gate.setup();
            return new OutsideConsumer(environment, new RecordReader(gate));
        } catch (Exception | Error e) {
            environment.close();
            throw e;
        }
    }

    /**
     * Reads on another thread and returns what the read threw.
     *
     * @param within how long the failure may take: a read that still blocks then is a hang
     */
    Throwable awaitReadFailure(Duration within) throws InterruptedException {
        CompletableFuture<Object> read = CompletableFuture.supplyAsync(() -> {
            try {
                return reader.next();
            } catch (Exception e) {
                return e;
            }
        });
        try {
            Object outcome = read.get(within.toMillis(), TimeUnit.MILLISECONDS);
            if (outcome instanceof Throwable failure) {
                return failure;
            }
            return fail("the read returned " + outcome + " instead of failing");
        } catch (TimeoutException e) {
            return fail("the read neither failed nor returned within " + within + ": it hangs");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Override
    public void close() {
        reader.close();
        environment.close();
        ShuffleMetrics metrics = environment.metrics();
        assertEquals(metrics.totalSegments(), metrics.availableSegments(), "segments of " + environment.resourceId()
                + " after close");
    }
}
