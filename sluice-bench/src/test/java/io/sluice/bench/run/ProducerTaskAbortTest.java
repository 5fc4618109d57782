package io.sluice.bench.run;

import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.bench.options.Workload;
import io.sluice.testing.Await;
import io.sluice.tests.support.RecordSizes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A timed producer whose writer is closed by an abort stops with the writer's {@link ShuffleException} instead of
 * writing into the closed writer until its duration is over.
 */
class ProducerTaskAbortTest {

    /** A hang guard far below the workload's hour. */
    private static final long NO_HANG_SECONDS = 30;

    @Test
    void timedProducer_abortedWhileRunning_stopsWithShuffleException() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.MEMORY_TOTAL, 1L << 20)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4096L);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        try (ShuffleEnvironment environment = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new ResourceId("abort-test")))) {
            environment.start();
            ShuffleDescriptor descriptor = factory.createShuffleMaster(config).registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED, 1, 0),
                    new ProducerDescriptor(environment.resourceId(), environment.dataAddress())).get();
            ResultPartitionWriter writer = environment.createResultPartitionWriters("producer-0",
                    List.of(new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, 1)))
                    .get(0);
            writer.setup();
            Workload hour = new Workload(RecordSizes.uniform(64, 512), 0, Duration.ofHours(1), 7, null);
            ProducerTask producer = new ProducerTask(0, writer, hour, 1);
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    producer.run();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e); // get() unwraps it
                }
            });
            // Running: it has emitted, and goes on emitting or blocks on its full pool (nobody reads).
            Await.until(() -> producer.counters().records() > 0 || run.isDone(), "the producer's first record");

            producer.abort();

            ExecutionException ended = assertThrows(ExecutionException.class,
                    () -> run.get(NO_HANG_SECONDS, TimeUnit.SECONDS));
            ShuffleException closed = assertInstanceOf(ShuffleException.class, ended.getCause());
            assertEquals(true, closed.getMessage().contains("closed"), closed.getMessage());
        }
    }
}
