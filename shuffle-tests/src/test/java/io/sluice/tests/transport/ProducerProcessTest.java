package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTcpTransport;

import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.StreamDigest;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The producer in a second JVM ({@link ProducerProcess}, started and killed by the test through its process handle),
 * the consumer in this one: a known data set crosses the process boundary intact, and a producer process that dies
 * mid-stream fails its consumer with a {@code TransportException} within five seconds.
 */
class ProducerProcessTest {

    /** Per subpartition: about 2 x 12 MB, so the stream runs for a while over loopback. */
    private static final int RECORDS = 2000;
    /** The bound a failure is held to here (docs/contract.md: failures surface within seconds), from the kill. */
    private static final Duration FAILURE_DEADLINE = Duration.ofSeconds(5);
    /** Each consumer of the endless producer reads this much before the kill: the stream is running. */
    private static final long RECORDS_BEFORE_KILL = 300;

    @TempDir
    Path workDirectory;

    @EveryTcpTransport
    void producerInAnotherJvm_deliversAKnownDataSet_thatTheConsumerVerifies(Transport transport) throws Exception {
        try (ChildJvm child = ProducerProcess.start(transport, String.valueOf(RECORDS), workDirectory);
             ShuffleFixture shuffle = ShuffleFixture.start(transport, 1, ProducerProcess.CONFIG)) {
            RegisteredPartition partition = partitionOf(child);
            List<BackgroundTask<StreamDigest.Summary>> consumers = new ArrayList<>();
            List<RecordVerifier> verifiers = new ArrayList<>();
            for (int s = 0; s < ProducerProcess.SUBPARTITIONS; s++) {
                RecordReader reader = Endpoints.setUpReader(shuffle, "consumer " + s, s, partition);
                RecordVerifier verifier = new RecordVerifier("consumer " + s, new int[] {s});
                verifiers.add(verifier);
                consumers.add(shuffle.fork("consumer " + s, () -> {
                    StreamDigest digest = new StreamDigest();
                    CountingReads.readToEnd(reader, verifier, digest, new AtomicLong());
                    return digest.summary();
                }));
            }
            BackgroundTask.awaitAll(Await.EVENTUALLY, consumers.toArray(new BackgroundTask<?>[0]));

            List<String> sent = child.awaitValues("SENT", ProducerProcess.SUBPARTITIONS, Await.EVENTUALLY);
            for (int s = 0; s < ProducerProcess.SUBPARTITIONS; s++) {
                verifiers.get(s).endOfChannel(0, RECORDS);
                StreamDigest.Summary received = consumers.get(s).await(Await.EVENTUALLY);
                assertEquals(sent.get(s), s + " " + received.records() + " " + received.bytes() + " "
                        + received.crc32c(), "subpartition, records, bytes and checksum the producer process sent "
                        + "and this process received");
            }
            // The producer process saw its partition consumed, closed its environment and checked it.
            assertEquals(0, child.awaitExit(Await.EVENTUALLY), "exit code of the producer process; " + child);
            String[] segments = child.awaitValue("SEGMENTS", Await.EVENTUALLY).split(" ");
            assertEquals(segments[1], segments[0], "available and total segments of the producer's environment "
                    + "after close");
            assertEquals("0", child.awaitValue("LEAKS", Await.EVENTUALLY), "Netty leaks the producer process reported");
        }
    }

    @EveryTcpTransport
    void producerJvmKilledMidStream_failsTheConsumerWithTransportException_withinFiveSeconds(Transport transport)
            throws Exception {
        try (ChildJvm child = ProducerProcess.start(transport, ProducerProcess.ENDLESS, workDirectory);
             ShuffleFixture shuffle = ShuffleFixture.start(transport, 1, ProducerProcess.CONFIG)) {
            RegisteredPartition partition = partitionOf(child);
            String producerId = child.awaitValue("RESOURCE_ID", Await.EVENTUALLY);
            List<BackgroundTask<Long>> consumers = new ArrayList<>();
            List<AtomicLong> recordsRead = new ArrayList<>();
            for (int s = 0; s < ProducerProcess.SUBPARTITIONS; s++) {
                RecordReader reader = Endpoints.setUpReader(shuffle, "consumer " + s, s, partition);
                RecordVerifier verifier = new RecordVerifier("consumer " + s, new int[] {s});
                AtomicLong read = new AtomicLong();
                recordsRead.add(read);
                consumers.add(shuffle.fork("consumer " + s,
                        () -> CountingReads.readToEnd(reader, verifier, new StreamDigest(), read)));
            }
            Await.until(() -> recordsRead.stream().allMatch(read -> read.get() >= RECORDS_BEFORE_KILL),
                    Await.EVENTUALLY, () -> "every consumer read " + RECORDS_BEFORE_KILL + " records: " + recordsRead);

            Deadline deadline = Deadline.in(FAILURE_DEADLINE);
            child.kill();

            for (int s = 0; s < ProducerProcess.SUBPARTITIONS; s++) {
                LostConnections.assertTransportExceptionNamingTheProducer(
                        consumers.get(s).awaitFailure(deadline.remaining()), producerId, "consumer " + s);
            }
        }
    }

    /** Waits for the child's partition and makes it something gates can read. */
    private static RegisteredPartition partitionOf(ChildJvm child) throws Exception {
        String encoded = child.awaitValue("PARTITION", Await.EVENTUALLY);
        return new RegisteredPartition(ProducerProcess.decodeDescriptor(encoded), ProducerProcess.SUBPARTITIONS);
    }
}
