package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Writers and readers of a {@link ShuffleFixture}, set up in one call: the first steps of every transport test.
 * Stateless; called on the test's thread.
 */
final class Endpoints {

    private Endpoints() {
    }

    /**
     * @param producerName the producing task's name
     * @param partition what it produces
     * @return its writer in the producers' environment, set up (its partition registered there)
     */
    static ResultPartitionWriter setUpWriter(ShuffleFixture shuffle, String producerName,
                                             RegisteredPartition partition) throws IOException {
        ResultPartitionWriter writer = shuffle.createWriter(producerName, partition);
        writer.setup();
        return writer;
    }

    /**
     * @param consumerName the consuming task's name
     * @param subpartition the subpartition each channel reads
     * @param partitions channel {@code i} reads {@code partitions[i]}
     * @return a reader over a gate in the consumers' environment, set up (its requests sent)
     */
    static RecordReader setUpReader(ShuffleFixture shuffle, String consumerName, int subpartition,
                                    RegisteredPartition... partitions) throws IOException {
        InputGate gate = shuffle.createGate(consumerName, subpartition, partitions);
        gate.setup();
        return shuffle.reader(gate);
    }

    /**
     * A whole verified stream: registers a partition of one subpartition in the producers' environment, emits
     * {@code records} records of {@code sizes} into it, finishes, and checks that the consumer in the consumers'
     * environment read every record once, in order and intact.
     *
     * @param name names the producer and consumer tasks ("consumer " + name)
     */
    static void streamAndVerify(ShuffleFixture shuffle, String name, RecordSizes sizes, long seed, long records)
            throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(1);
        ResultPartitionWriter writer = setUpWriter(shuffle, "producer " + name, partition);
        RecordReader reader = setUpReader(shuffle, "consumer " + name, 0, partition);
        RecordVerifier verifier = new RecordVerifier("consumer " + name, new int[] {0});
        BackgroundTask<Long> consumer = shuffle.fork("consumer " + name, () -> RecordTraffic.readToEnd(reader,
                verifier));
        RecordTraffic.emit(writer, 0, new RecordGenerator(0, seed, sizes), records);
        writer.finish();
        consumer.await(Await.EVENTUALLY);
        verifier.endOfChannel(0, records);
        verifier.verifyAllEnded();
        assertEquals(records, verifier.records(), "records read by consumer " + name);
    }
}
