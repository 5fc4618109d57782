package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Found by seeded fault injection (seeds closing a producer environment right after the job started): a consumer
 * connecting while the producer's environment closes must not leave that environment with a connection open after
 * its close returned. Such a connection outlives its event loop; on the local transport whatever the consumer then
 * writes to it (a credit, a task event) is queued to a peer that never reads, and leaks. A race, so it is run many
 * times, on the local transport (where the consequence is a leak).
 */
class ProducerEnvironmentClosedWhileConnectingTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT)
            .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
            .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1);
    private static final int ROUNDS = 60;

    @Test
    void producerEnvironmentClosedWhileAConsumerConnects_keepsNoConnectionOpen() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.LOCAL, CONFIG)) {
                RegisteredPartition partition = shuffle.registerPartition(1);
                ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
                writer.setup();
                InputGate gate = shuffle.createGate("consumer", 0, partition);
                ShuffleEnvironment producerEnvironment = shuffle.producerEnvironment();
                BackgroundTask<Void> close = shuffle.fork("close producer environment", () -> {
                    producerEnvironment.close();
                    return null;
                });
                try {
                    gate.setup();
                    gate.sendTaskEvent(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                } catch (ShuffleException expected) {
                    // the producer environment went away: the documented failure
                }
                close.await(java.time.Duration.ofSeconds(30));

                assertEquals(0, producerEnvironment.metrics().openConnections(),
                        "round " + round + ": connections of the closed producer environment still open");
            }
        }
    }
}
