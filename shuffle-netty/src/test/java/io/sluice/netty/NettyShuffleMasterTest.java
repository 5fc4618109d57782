package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleDescriptor;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The coordinator side: the descriptors it makes and the partitions it remembers. */
class NettyShuffleMasterTest {

    private final NettyShuffleMaster master = new NettyShuffleMaster();
    private final ResultPartitionId partitionId = ResultPartitionId.random();
    private final ProducerDescriptor producer = new ProducerDescriptor(new ResourceId("tm-7"),
            new InetSocketAddress("127.0.0.1", 4711));

    @AfterEach
    void close() {
        master.close();
    }

    private ShuffleDescriptor register(int connectionIndex) {
        return master.registerPartitionWithProducer(
                new PartitionDescriptor(partitionId, PartitionType.PIPELINED_BOUNDED, 3, connectionIndex), producer)
                .join();
    }

    @Test
    void descriptor_carriesPartitionProducerAddressAndConnectionIndex() {
        NettyShuffleDescriptor descriptor = assertInstanceOf(NettyShuffleDescriptor.class, register(2));

        assertEquals(partitionId, descriptor.partitionId());
        assertEquals(new ResourceId("tm-7"), descriptor.producerId());
        assertEquals(new InetSocketAddress("127.0.0.1", 4711), descriptor.dataAddress());
        assertEquals(2, descriptor.connectionIndex());
        assertEquals(1, master.registeredPartitions());
    }

    @Test
    void descriptor_survivesJavaSerialization_withValueEquality() throws Exception {
        ShuffleDescriptor descriptor = register(0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(descriptor);
        }

        Object copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = in.readObject();
        }

        assertNotSame(descriptor, copy);
        assertEquals(descriptor, copy);
        assertEquals(descriptor.hashCode(), copy.hashCode());
    }

    @Test
    void releasePartitionExternally_forgetsIt_andIsSafeTwice() {
        ShuffleDescriptor descriptor = register(0);

        master.releasePartitionExternally(descriptor);
        master.releasePartitionExternally(descriptor);

        assertEquals(0, master.registeredPartitions());
    }

    @Test
    void closedMaster_refusesRegistrations_namingThePartition() {
        master.close();

        CompletionException error = assertThrows(CompletionException.class, () -> register(0));

        assertInstanceOf(IllegalStateException.class, error.getCause());
        assertTrue(error.getCause().getMessage().contains(partitionId.toString()), error.getCause().getMessage());
    }

    @Test
    void descriptor_rejectsANegativeConnectionIndex() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> new NettyShuffleDescriptor(partitionId, producer.producerId(), producer.dataAddress(), -1));

        assertTrue(error.getMessage().contains("connectionIndex must be >= 0, got -1"), error.getMessage());
    }
}
