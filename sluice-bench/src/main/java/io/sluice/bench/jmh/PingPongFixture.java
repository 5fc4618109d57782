package io.sluice.bench.jmh;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.bench.run.Environments;
import io.sluice.tests.support.Wiring;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * Two partitions in opposite directions between environments A and B, flushed after every record.
 * An echo thread on B sends back every record it reads; {@link #roundTrip()} sends one 8-byte
 * record from A and waits for its echo. Built and closed by the JMH setup/teardown thread;
 * {@link #roundTrip()} from one benchmark thread.
 */
final class PingPongFixture {

    private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);
    private static final long JOIN_MILLIS = 30_000;

    private final Environments environments;
    private final ShuffleMaster master;
    private final ResultPartitionWriter ping;   // A -> B, used by the benchmark thread
    private final ResultPartitionWriter pong;   // B -> A, used by the echo thread
    private final RecordReader pingReader;      // on B, read by the echo thread
    private final RecordReader pongReader;      // on A, read by the benchmark thread
    private final ByteBuffer record = ByteBuffer.allocate(Long.BYTES);
    private final Thread echo;
    private volatile Throwable echoFailure;

    /**
     * @param link where the records go through; with {@link Link#INPROCESS} A and B are one environment
     * @param config the library configuration; the flush interval is set to 0 here
     * @throws Exception when the library cannot set it up
     */
    PingPongFixture(Link link, ShuffleConfig config) throws Exception {
        ShuffleConfig flushEveryRecord = config.with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ZERO);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(flushEveryRecord);
        environments = Environments.start(factory, link.contexts(flushEveryRecord));
        master = factory.createShuffleMaster(flushEveryRecord);
        ShuffleEnvironment a = environments.get(0);
        ShuffleEnvironment b = environments.get(link.consumerEnvironment());
        ShuffleDescriptor toB = Wiring.register(master, ResultPartitionId.random(), 1,
                new ProducerDescriptor(a.resourceId(), a.dataAddress()));
        ShuffleDescriptor toA = Wiring.register(master, ResultPartitionId.random(), 1,
                new ProducerDescriptor(b.resourceId(), b.dataAddress()));
        ping = Wiring.writer(a, "jmh-ping", toB, 1);
        pong = Wiring.writer(b, "jmh-pong", toA, 1);
        ping.setup();
        pong.setup();
        InputGate echoGate = Wiring.gate(b, "jmh-echo", 0, List.of(toB));
        InputGate pingerGate = Wiring.gate(a, "jmh-pinger", 0, List.of(toA));
        echoGate.setup();
        pingerGate.setup();
        pingReader = new RecordReader(echoGate);
        pongReader = new RecordReader(pingerGate);
        echo = new Thread(this::echo, "jmh-echo");
        echo.setDaemon(true);
        echo.start();
    }

    /**
     * Sends one record to B and waits for B to send it back.
     *
     * @return the timestamp the record carried, so JMH keeps the work
     * @throws Exception when the path failed
     */
    long roundTrip() throws Exception {
        record.putLong(0, System.nanoTime());
        ping.emitRecord(record, 0);
        RecordOrEvent back = pongReader.next();
        if (back == null) {
            throw new IllegalStateException("the echo stopped: " + echoFailure, echoFailure);
        }
        return back.data().getLong(back.data().position());
    }

    private void echo() {
        try {
            RecordOrEvent next;
            while ((next = pingReader.next()) != null) {
                pong.emitRecord(next.data(), 0);
            }
            pong.finish();
            pong.close();
        } catch (Throwable t) { // any failure must stop the pinger too, or it would wait forever
            echoFailure = t;
            pong.close();
        }
    }

    /**
     * Ends both directions, checks that every buffer came back, and closes everything.
     *
     * @throws Exception when the echo failed or did not stop, or buffers leaked
     */
    void close() throws Exception {
        try {
            ping.finish();
            ping.close();
            echo.join(JOIN_MILLIS);
            if (echo.isAlive() || echoFailure != null) {
                throw new IllegalStateException("the echo thread " + (echo.isAlive() ? "did not stop" : "failed"), echoFailure);
            }
            while (pongReader.next() != null) {
                // Nothing is in flight after the last round trip; this reads the end of the partition.
            }
            pingReader.close(); // the gates keep their exclusive buffers until closed
            pongReader.close();
            int notReturned = environments.awaitBuffersReturned(RELEASE_GRACE);
            if (notReturned > 0) {
                throw new IllegalStateException(notReturned + " buffers not returned: " + environments.describeSegmentsInUse());
            }
        } finally {
            pingReader.close();
            pongReader.close();
            ping.close();
            pong.close();
            master.close();
            environments.close();
        }
    }
}
