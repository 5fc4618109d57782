package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class DescriptorsTest {

    /** A descriptor as an implementation might define it. */
    private record TestShuffleDescriptor(ResultPartitionId partitionId, ProducerDescriptor producer)
            implements ShuffleDescriptor {
    }

    private static final ResultPartitionId ID = new ResultPartitionId(0x0123456789abcdefL, 0xfedcba9876543210L);
    private static final ProducerDescriptor PRODUCER =
            new ProducerDescriptor(new ResourceId("tm-1"), new InetSocketAddress("127.0.0.1", 4711));

    @Test
    void resultPartitionId_printsAs32HexDigits_andParsesBack() {
        assertEquals("0123456789abcdeffedcba9876543210", ID.toString());
        assertEquals(ID, ResultPartitionId.fromString("0123456789ABCDEFfedcba9876543210"));
        ResultPartitionId allOnes = new ResultPartitionId(-1, -1);
        assertEquals("ffffffffffffffffffffffffffffffff", allOnes.toString());
        assertEquals(allOnes, ResultPartitionId.fromString(allOnes.toString()));
        assertEquals("00000000000000000000000000000001", new ResultPartitionId(0, 1).toString());
    }

    @Test
    void resultPartitionId_fromStringRejectsWhatIsNot32HexDigits() {
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
                () -> ResultPartitionId.fromString("abc"));
        IllegalArgumentException notHex = assertThrows(IllegalArgumentException.class,
                () -> ResultPartitionId.fromString("0123456789abcdefzedcba9876543210"));

        assertEquals("Cannot parse 'abc' as a ResultPartitionId: expected 32 hex digits", tooShort.getMessage());
        assertEquals("Cannot parse '0123456789abcdefzedcba9876543210' as a ResultPartitionId: not hex digits",
                notHex.getMessage());
    }

    @Test
    void resultPartitionId_randomIdsDiffer() {
        Set<ResultPartitionId> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            ids.add(ResultPartitionId.random());
        }
        assertEquals(1000, ids.size());
    }

    @Test
    void everyIdentityAndDescriptor_survivesSerialization_withValueEquality() throws Exception {
        TestShuffleDescriptor shuffleDescriptor = new TestShuffleDescriptor(ID, PRODUCER);
        List<Serializable> values = List.of(
                new ResourceId("tm-1"),
                ID,
                PartitionType.PIPELINED_BOUNDED,
                new PartitionDescriptor(ID, PartitionType.PIPELINED_BOUNDED, 4, 1),
                PRODUCER,
                new ResultPartitionDeploymentDescriptor(shuffleDescriptor, PartitionType.PIPELINED_BOUNDED, 4),
                new InputGateDeploymentDescriptor(2, new ArrayList<>(List.of(shuffleDescriptor, shuffleDescriptor))));

        for (Serializable value : values) {
            Object copy = roundTrip(value);
            assertEquals(value, copy, value.getClass().getSimpleName());
            assertEquals(value.hashCode(), copy.hashCode(), value.getClass().getSimpleName());
            if (!(value instanceof Enum)) {
                assertNotSame(value, copy);
            }
        }
    }

    @Test
    void descriptorsDifferWhenAFieldDiffers() {
        assertNotEquals(new PartitionDescriptor(ID, PartitionType.PIPELINED_BOUNDED, 4, 1),
                new PartitionDescriptor(ID, PartitionType.PIPELINED_BOUNDED, 4, 2));
        assertNotEquals(new ResourceId("tm-1"), new ResourceId("tm-2"));
        assertNotEquals(ID, new ResultPartitionId(ID.upper(), ID.lower() + 1));
    }

    @Test
    void inputGateDescriptor_copiesItsChannelList() {
        List<ShuffleDescriptor> channels = new ArrayList<>(List.of(new TestShuffleDescriptor(ID, PRODUCER)));
        InputGateDeploymentDescriptor descriptor = new InputGateDeploymentDescriptor(0, channels);

        channels.add(new TestShuffleDescriptor(ResultPartitionId.random(), PRODUCER));

        assertEquals(1, descriptor.inputChannels().size());
        assertThrows(UnsupportedOperationException.class, () -> descriptor.inputChannels().clear());
    }

    @Test
    void inputGateDescriptor_readsOneSubpartition_orARangeOfThem() {
        List<ShuffleDescriptor> channels = List.of(new TestShuffleDescriptor(ID, PRODUCER));

        InputGateDeploymentDescriptor one = new InputGateDeploymentDescriptor(3, channels);
        InputGateDeploymentDescriptor range = new InputGateDeploymentDescriptor(1, 4, channels);

        assertEquals(3, one.consumedSubpartitionIndex());
        assertEquals(3, one.lastConsumedSubpartitionIndex());
        assertEquals(new InputGateDeploymentDescriptor(3, 3, channels), one);
        assertEquals(1, range.consumedSubpartitionIndex());
        assertEquals(4, range.lastConsumedSubpartitionIndex());
        IllegalArgumentException backwards = assertThrows(IllegalArgumentException.class,
                () -> new InputGateDeploymentDescriptor(4, 1, channels));
        assertEquals("lastConsumedSubpartitionIndex must be >= consumedSubpartitionIndex 4, got 1",
                backwards.getMessage());
    }

    @Test
    void impossibleDescriptors_areRejectedWithTheNumbers() {
        IllegalArgumentException noSubpartitions = assertThrows(IllegalArgumentException.class,
                () -> new PartitionDescriptor(ID, PartitionType.PIPELINED_BOUNDED, 0, 0));
        IllegalArgumentException negativeIndex = assertThrows(IllegalArgumentException.class,
                () -> new InputGateDeploymentDescriptor(-1, List.of()));

        assertEquals("Partition " + ID + ": numberOfSubpartitions must be >= 1, got 0", noSubpartitions.getMessage());
        assertEquals("consumedSubpartitionIndex must be >= 0, got -1", negativeIndex.getMessage());
    }

    @Test
    void exceptions_areShuffleExceptions_whoseMessagesNameWhatFailed() {
        PartitionNotFoundException notFound = new PartitionNotFoundException(ID);
        PartitionNotFoundException notFoundWithDetail =
                new PartitionNotFoundException(ID, "producer 127.0.0.1:4711 did not know it after 7 retries");
        InetSocketAddress remote = new InetSocketAddress("127.0.0.1", 4711);
        TransportException lost = new TransportException("Connection lost", remote, new IOException("reset"));
        TransportException namingItself = new TransportException("Connection to " + remote + " lost", remote);

        assertEquals("Partition 0123456789abcdeffedcba9876543210 not found", notFound.getMessage());
        assertEquals("Partition 0123456789abcdeffedcba9876543210 not found: producer 127.0.0.1:4711 did not know "
                + "it after 7 retries", notFoundWithDetail.getMessage());
        assertEquals(ID, notFound.partitionId());
        assertEquals("Connection lost (remote address /127.0.0.1:4711)", lost.getMessage());
        assertEquals("reset", lost.getCause().getMessage());
        assertEquals("Connection to /127.0.0.1:4711 lost", namingItself.getMessage());
        assertEquals(remote, lost.remoteAddress());
        for (Exception e : List.of(notFound, lost, new ProducerFailedException("x"),
                new InsufficientBuffersException("y"))) {
            assertTrue(e instanceof ShuffleException && e instanceof IOException, e.getClass().getName());
        }
    }

    @Test
    void exceptions_surviveSerialization() throws Exception {
        PartitionNotFoundException copy = (PartitionNotFoundException) roundTrip(new PartitionNotFoundException(ID));

        assertEquals(ID, copy.partitionId());
        assertEquals("Partition " + ID + " not found", copy.getMessage());
    }

    private static Object roundTrip(Serializable value) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return in.readObject();
        }
    }
}
