package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleMetrics;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;

import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.SplitMix64;
import io.sluice.tests.support.Transport;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Four producers and four consumers, all-to-all, in two environments connected by a transport: every consumer reads
 * one subpartition of every producer, over the network, and gets every record once, in order and intact.
 */
class AllToAllRemoteShuffleTest {

    private static final int PRODUCERS = 4;
    private static final int CONSUMERS = 4;
    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    /** 512 segments each: the four partitions and the four gates need at most 64. */
    static final ShuffleConfig CONFIG = MemoryConfig.of(512, SEGMENT_SIZE);
    /**
     * Mixed sizes up to three segments, with the boundaries of framing: a 4-byte length plus 4092 bytes fills a
     * segment exactly, 4096 and 4100 bytes spill just over; 8000 and 12288 bytes span two to four buffers.
     */
    private static final RecordSizes SIZES = RecordSizes.parse(
            "24:30,100:25,1000:20,4092:5,4096:5,4100:5,8000:5," + 3 * SEGMENT_SIZE + ":5");
    /** Per producer, spread at random over its subpartitions: about 15 MB in all, some 4000 buffers. */
    private static final int RECORDS_PER_PRODUCER = 2000;
    private static final long SEED = 0xA11L;

    @EveryTransport
    void fourProducersToFourConsumers_acrossTwoEnvironments_deliverEveryRecordOnceInOrderAndIntact(Transport transport)
            throws Exception {
        shuffleAllToAll(transport, CONFIG);
    }

    /**
     * The whole all-to-all shuffle with its checks, on a configuration based on {@link #CONFIG} (e.g. with TLS).
     *
     * @param config both environments' configuration
     */
    static void shuffleAllToAll(Transport transport, ShuffleConfig config) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config)) {
            RegisteredPartition[] partitions = new RegisteredPartition[PRODUCERS];
            ResultPartitionWriter[] writers = new ResultPartitionWriter[PRODUCERS];
            for (int p = 0; p < PRODUCERS; p++) {
                partitions[p] = shuffle.registerPartition(CONSUMERS);
                writers[p] = Endpoints.setUpWriter(shuffle, "producer " + p, partitions[p]);
            }
            List<BackgroundTask<?>> tasks = new ArrayList<>();
            List<BackgroundTask<RecordVerifier>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                RecordReader reader = Endpoints.setUpReader(shuffle, "consumer " + c, c, partitions);
                RecordVerifier verifier = new RecordVerifier("consumer " + c, streamsReadBy(c));
                consumers.add(shuffle.fork("consumer " + c, () -> {
                    RecordTraffic.readToEnd(reader, verifier);
                    return verifier;
                }));
            }
            tasks.addAll(consumers);
            List<BackgroundTask<long[]>> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                ResultPartitionWriter writer = writers[p];
                int producer = p;
                producers.add(shuffle.fork("producer " + p, () -> produce(writer, producer)));
            }
            tasks.addAll(producers);

            BackgroundTask.awaitAll(Await.EVENTUALLY, tasks.toArray(new BackgroundTask<?>[0]));

            long sentRecords = 0;
            for (int c = 0; c < CONSUMERS; c++) {
                RecordVerifier verifier = consumers.get(c).await(Await.EVENTUALLY);
                for (int p = 0; p < PRODUCERS; p++) {
                    long sent = producers.get(p).await(Await.EVENTUALLY)[c];
                    verifier.endOfChannel(p, sent);
                    sentRecords += sent;
                }
                verifier.verifyAllEnded();
            }
            assertEquals((long) PRODUCERS * RECORDS_PER_PRODUCER, sentRecords, "records sent over all streams");
            ShuffleMetrics sender = shuffle.producerEnvironment().metrics();
            ShuffleMetrics receiver = shuffle.consumerEnvironment().metrics();
            assertEquals(sender.bytesSent(), receiver.bytesReceived(), "bytes the producers' environment sent "
                    + "and the consumers' environment received");
            assertEquals(sender.buffersSent(), receiver.buffersReceived(), "buffers sent and received");
            assertTrue(receiver.bytesReceived() > 0, "the consumers received over the transport: " + receiver);
        }
    }

    /** Producer thread: records of its four streams, to subpartitions picked at random, then finish. */
    private static long[] produce(ResultPartitionWriter writer, int producer) throws Exception {
        RecordGenerator[] streams = new RecordGenerator[CONSUMERS];
        for (int c = 0; c < CONSUMERS; c++) {
            streams[c] = new RecordGenerator(stream(producer, c), SEED, SIZES);
        }
        SplitMix64 targets = new SplitMix64(SEED + producer);
        for (int i = 0; i < RECORDS_PER_PRODUCER; i++) {
            int target = targets.nextInt(CONSUMERS);
            RecordTraffic.emitNext(writer, target, streams[target]);
        }
        writer.finish();
        long[] sent = new long[CONSUMERS];
        for (int c = 0; c < CONSUMERS; c++) {
            sent[c] = streams[c].nextSequence();
        }
        return sent;
    }

    /** @return for each channel of a consumer's gate (channel {@code p} reads producer {@code p}), its stream */
    private static int[] streamsReadBy(int consumer) {
        int[] streams = new int[PRODUCERS];
        for (int p = 0; p < PRODUCERS; p++) {
            streams[p] = stream(p, consumer);
        }
        return streams;
    }

    /** The stream of records from producer {@code p} to consumer {@code c}: unique over the whole shuffle. */
    private static int stream(int producer, int consumer) {
        return producer * CONSUMERS + consumer;
    }
}
