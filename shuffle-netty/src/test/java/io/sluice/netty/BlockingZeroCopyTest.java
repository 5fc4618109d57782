package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.event.EventSerializer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * shuffle.blocking.zero-copy end to end over loopback TCP: {@code always} sends the partition from its file (the
 * producer's read budget stays unused), {@code never} and {@code auto} (the consumer is on this host) read it through
 * the budget; every mode delivers every buffer and byte.
 */
class BlockingZeroCopyTest {

    private static final int SEGMENT = 32 * 1024;
    private static final int RECORDS = 400;
    /** Four records to a buffer, so that runs of stored buffers form. */
    private static final int RECORD_BYTES = SEGMENT / 4 - 4;

    /**
     * The serialized end-of-partition event (its tag and the subpartition's data bytes and buffers), counted by the
     * byte counters like data.
     */
    private static final int END_OF_PARTITION_BYTES = EventSerializer.END_OF_PARTITION_FULLY_COUNTED_BYTES;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"always, nio, true", "never, nio, false", "auto, nio, false", "always, epoll, true"})
    void blockingRead_overLoopback_takesThePathTheOptionSays_andDeliversEverything(String mode, String transport,
                                                                                   boolean sendfile) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(!"epoll".equals(transport)
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll is not available here");
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.MEMORY_TOTAL, 128L * SEGMENT)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString())
                .with(ShuffleOptions.BLOCKING_ZERO_COPY, mode);
        NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
        try (ShuffleMaster master = factory.createShuffleMaster(config);
             NettyShuffleEnvironment producer = (NettyShuffleEnvironment) factory.createShuffleEnvironment(
                     ShuffleEnvironmentContext.of(config, new ResourceId("zero-copy-producer")));
             NettyShuffleEnvironment consumer = (NettyShuffleEnvironment) factory.createShuffleEnvironment(
                     ShuffleEnvironmentContext.of(config, new ResourceId("zero-copy-consumer")))) {
            producer.start();
            consumer.start();
            ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.BLOCKING, 1, 0),
                    new ProducerDescriptor(producer.resourceId(), producer.dataAddress())).get();
            ResultPartitionWriter writer = producer.createResultPartitionWriters("producer", List.of(
                    new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.BLOCKING, 1))).get(0);
            writer.setup();
            ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
            for (int i = 0; i < RECORDS; i++) {
                record.clear();
                record.putInt(0, i);
                writer.emitRecord(record, 0);
            }
            writer.finish();
            writer.close();

            InputGate gate = consumer.createInputGates("consumer",
                    List.of(new InputGateDeploymentDescriptor(0, List.of(descriptor)))).get(0);
            gate.setup();
            long dataBytes = 0;
            while (!gate.isFinished()) {
                Optional<BufferOrEvent> next = gate.getNext();
                if (next.isPresent()) {
                    if (!next.get().isEvent()) {
                        dataBytes += next.get().data().remaining();
                    }
                    next.get().recycle();
                }
            }
            gate.close();

            assertEquals(RECORDS * (RECORD_BYTES + 4L), dataBytes, "framed record bytes delivered");
            long received = consumer.metrics().bytesReceived();
            assertEquals(received, producer.metrics().bytesSent(), "bytes sent count data, not stored headers");
            assertEquals(dataBytes + END_OF_PARTITION_BYTES, received, "the data and the end-of-partition event");
            int readSegments = producer.blockingReads().allocatedSegments();
            if (sendfile) {
                assertEquals(0, readSegments, "sendfile takes no read memory");
            } else {
                assertTrue(readSegments > 0, "read through the budget: " + readSegments + " segments");
            }
        }
    }
}
