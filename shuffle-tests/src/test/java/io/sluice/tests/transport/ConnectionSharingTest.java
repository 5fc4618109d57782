package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;

import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * 200 remote channels in four gates of one environment, all reading partitions of one other environment, share its
 * connections: one per connection index, opened once even though the gates set up at the same moment, and closed
 * once their last channel is done.
 */
class ConnectionSharingTest {

    /**
     * 1024 segments each: the consumers reserve 200 channels x 2 exclusive + 4 gates x 8 floating = 432, and the
     * producers' 200 partitions need at least 2 each.
     */
    private static final ShuffleConfig CONFIG = MemoryConfig.of(1024, MemoryConfig.SMALL_SEGMENT);
    private static final int CHANNELS = 200;
    private static final int GATES = 4;
    private static final int CHANNELS_PER_GATE = CHANNELS / GATES;
    private static final int CONNECTION_INDEXES = 2;
    private static final int RECORDS_PER_CHANNEL = 50;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 200);
    private static final long SEED = 0x200L;

    @EveryTransport
    void twoHundredChannelsToOneProducerEnvironment_shareOneConnectionPerConnectionIndex(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            ShuffleEnvironment producerEnvironment = shuffle.producerEnvironment();
            ShuffleEnvironment consumerEnvironment = shuffle.consumerEnvironment();
            RegisteredPartition[] partitions = new RegisteredPartition[CHANNELS];
            ResultPartitionWriter[] writers = new ResultPartitionWriter[CHANNELS];
            for (int i = 0; i < CHANNELS; i++) {
                partitions[i] = shuffle.registerPartition(1, i % CONNECTION_INDEXES);
                writers[i] = Endpoints.setUpWriter(shuffle, "producer " + i, partitions[i]);
            }
            InputGate[] gates = new InputGate[GATES];
            BackgroundTask<?>[] setups = new BackgroundTask<?>[GATES];
            for (int g = 0; g < GATES; g++) {
                InputGate gate = shuffle.createGate("consumer " + g, 0,
                        Arrays.copyOfRange(partitions, g * CHANNELS_PER_GATE, (g + 1) * CHANNELS_PER_GATE));
                gates[g] = gate;
                // All gates at once: their channels ask for the same two connections at the same moment.
                setups[g] = shuffle.fork("setup of consumer " + g, () -> {
                    gate.setup();
                    return null;
                });
            }
            BackgroundTask.awaitAll(Await.EVENTUALLY, setups);

            assertEquals(CONNECTION_INDEXES, consumerEnvironment.metrics().openConnections(),
                    "connections the consumers' environment opened for " + CHANNELS + " channels");
            Await.until(() -> producerEnvironment.metrics().openConnections() == CONNECTION_INDEXES,
                    Await.EVENTUALLY, () -> "the producers' environment accepted " + CONNECTION_INDEXES
                            + " connections: " + producerEnvironment.metrics());

            List<BackgroundTask<?>> tasks = new ArrayList<>();
            List<BackgroundTask<RecordVerifier>> consumers = new ArrayList<>();
            for (int g = 0; g < GATES; g++) {
                RecordReader reader = shuffle.reader(gates[g]);
                RecordVerifier verifier = new RecordVerifier("consumer " + g, streamsOfGate(g));
                consumers.add(shuffle.fork("consumer " + g, () -> {
                    RecordTraffic.readToEnd(reader, verifier);
                    return verifier;
                }));
            }
            tasks.addAll(consumers);
            tasks.add(shuffle.fork("producer", () -> produce(writers)));
            BackgroundTask.awaitAll(Await.EVENTUALLY, tasks.toArray(new BackgroundTask<?>[0]));

            for (BackgroundTask<RecordVerifier> consumer : consumers) {
                RecordVerifier verifier = consumer.await(Await.EVENTUALLY);
                for (int c = 0; c < CHANNELS_PER_GATE; c++) {
                    verifier.endOfChannel(c, RECORDS_PER_CHANNEL);
                }
                verifier.verifyAllEnded();
            }
            // Every channel read its partition to the end and let go: the connections have no user left.
            Await.until(() -> consumerEnvironment.metrics().openConnections() == 0
                            && producerEnvironment.metrics().openConnections() == 0, Await.EVENTUALLY,
                    () -> "both sides closed the connections after their last channel; consumers' side "
                            + consumerEnvironment.metrics() + ", producers' side " + producerEnvironment.metrics());
        }
    }

    /** One thread for all partitions, round-robin, so that every connection carries many channels at once. */
    private static Void produce(ResultPartitionWriter[] writers) throws Exception {
        RecordTraffic.emitRoundRobinAndFinish(writers, RECORDS_PER_CHANNEL, SEED, SIZES);
        return null;
    }

    /** @return for each channel of gate {@code g}, the stream (the partition's number) it carries */
    private static int[] streamsOfGate(int gate) {
        int[] streams = new int[CHANNELS_PER_GATE];
        for (int c = 0; c < CHANNELS_PER_GATE; c++) {
            streams[c] = gate * CHANNELS_PER_GATE + c;
        }
        return streams;
    }
}
