package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency: one 8-byte record in flight, flush interval 0, from environment A to B and back.
 * JMH samples each round trip; read p0.50 and p0.99. The comparison script reports it as
 * {@code sluice.latency.rtt.1rec}, a figure of its own: half a round trip is not the one-way latency (it adds
 * the echo thread's turn-around and both directions' credit traffic). The one-way figure set against the Flink
 * peer's {@code flink.latency.1rec} is {@code sluice-bench latency}, in that peer's shape.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g", "-XX:+UseG1GC",
        "-Dslf4j.internal.verbosity=ERROR"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
public class RoundTripLatencyBenchmark {

    /** See {@link Link}: tcp, nio, epoll, local or inprocess. */
    @Param({"tcp", "local", "inprocess"})
    public String link;

    private PingPongFixture fixture;

    /** Connects A and B and starts the echo. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new PingPongFixture(Link.named(link), ShuffleConfig.empty());
    }

    /** Ends both directions and checks that nothing leaked. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
    }

    /** @return the echoed timestamp, so the work cannot be optimised away */
    @Benchmark
    public long roundTrip() throws Exception {
        return fixture.roundTrip();
    }
}
