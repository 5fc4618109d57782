package io.sluice.netty.transport;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.NettyShuffleServiceFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** One producer in one environment, one consumer in another, over each transport. */
class RemoteShuffleSmokeTest {

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll", "local"})
    void recordsCrossEnvironments_inOrder_andMemoryComesBack(String transport) throws Exception {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.MEMORY_TOTAL, 8L << 20);
        NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
        ShuffleMaster master = factory.createShuffleMaster(config);
        ShuffleEnvironment producerEnv = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new ResourceId("producer")));
        ShuffleEnvironment consumerEnv = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new ResourceId("consumer")));
        try {
            producerEnv.start();
            consumerEnv.start();
            ResultPartitionId id = ResultPartitionId.random();
            ShuffleDescriptor sd = master.registerPartitionWithProducer(
                    new PartitionDescriptor(id, PartitionType.PIPELINED_BOUNDED, 1, 0),
                    new ProducerDescriptor(producerEnv.resourceId(), producerEnv.dataAddress())).get();
            ResultPartitionWriter writer = producerEnv.createResultPartitionWriters("p",
                    List.of(new ResultPartitionDeploymentDescriptor(sd, PartitionType.PIPELINED_BOUNDED, 1))).get(0);
            InputGate gate = consumerEnv.createInputGates("c",
                    List.of(new InputGateDeploymentDescriptor(0, List.of(sd)))).get(0);
            writer.setup();
            gate.setup();
            int records = 20_000;
            CRC32 sent = new CRC32();
            Thread producer = new Thread(() -> {
                try {
                    ByteBuffer record = ByteBuffer.allocate(70_000);
                    for (int i = 0; i < records; i++) {
                        int size = (i * 7919) % 70_000;
                        record.clear();
                        for (int b = 0; b < Math.min(size, 16); b++) {
                            record.put((byte) (i + b));
                        }
                        record.position(0).limit(size);
                        if (size >= 4) {
                            record.putInt(0, i);
                        }
                        writer.emitRecord(record, 0);
                    }
                    writer.finish();
                    writer.close();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            producer.start();
            int count = 0;
            try (RecordReader reader = new RecordReader(gate)) {
                for (RecordOrEvent r = reader.next(); r != null; r = reader.next()) {
                    ByteBuffer data = r.data();
                    int expectedSize = (count * 7919) % 70_000;
                    assertEquals(expectedSize, data.remaining(), "size of record " + count);
                    if (expectedSize >= 4) {
                        assertEquals(count, data.getInt(data.position()), "order");
                    }
                    count++;
                }
                assertNull(reader.next());
            }
            producer.join();
            assertEquals(records, count);
        } finally {
            consumerEnv.close();
            producerEnv.close();
        }
        assertEquals(producerEnv.metrics().totalSegments(), producerEnv.metrics().availableSegments());
        assertEquals(consumerEnv.metrics().totalSegments(), consumerEnv.metrics().availableSegments());
    }
}
