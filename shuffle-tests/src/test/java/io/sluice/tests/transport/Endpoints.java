package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.io.IOException;

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
}
