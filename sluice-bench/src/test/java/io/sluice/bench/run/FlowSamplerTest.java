package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.bench.report.FlowSample;
import io.sluice.bench.report.FlowSummary;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bench's flow figures, sampled from a real environment. */
class FlowSamplerTest {

    @Test
    void blockedProducer_showsAsBackpressure_andFullPools_inTheSamples() throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(16));
            environment.start();
            ResultPartitionWriter writer = fixture.setUpWriter(environment, 1);
            InputGate gate = fixture.setUpGate(environment, 0, writer);
            FlowSampler sampler = new FlowSampler(List.of(environment), System.nanoTime());
            BackgroundTask<Void> producer = BackgroundTask.start("blocked-producer", () -> {
                ByteBuffer record = ByteBuffer.allocate((int) EnvironmentFixture.SEGMENT_SIZE - 4);
                for (int i = 0; i < 100; i++) {
                    writer.emitRecord(record, 0);
                }
                writer.finish();
            });
            // Nobody reads: the producer blocks. A sample after it blocked shows it.
            Await.until(() -> writer.metrics().backpressuredNanos() > 0, "the producer blocks");
            Thread.sleep(FlowSummary.INTERVAL_MILLIS); // no assertion on time: a sample interval to measure over
            sampler.sample();
            FlowSample blocked = sampler.summary().samples().get(0);
            assertTrue(blocked.backpressuredMsPerSecond() > 0, "blocked ms/s: " + blocked);
            assertTrue(blocked.outputPoolUsage() > 0 && blocked.outputPoolUsage() <= 1, "usage: " + blocked);
            assertTrue(blocked.recordsOut() > 0, "records emitted before blocking: " + blocked);

            while (!gate.isFinished()) {
                gate.getNext().ifPresent(element -> element.recycle());
            }
            producer.await();
            gate.close();
            writer.close();
            sampler.sample();
            FlowSummary summary = sampler.summary();
            assertEquals(2, summary.samples().size());
            assertEquals(0, summary.samples().get(1).outputPoolUsage(), "everything released: no pool left");
            assertEquals(blocked.backpressuredMsPerSecond(), summary.peakBackpressuredMsPerSecond(), 1e-9);
        }
    }
}
