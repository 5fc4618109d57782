package io.sluice.bench.jmh;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the streaming throughput benchmarks share: the JVM flags of the Flink peer, the run lengths, the
 * {@link Link} parameter, and the teardown that fails the run when a record was lost or a buffer not returned.
 * A subclass builds its {@link StreamingFixture} in its own setup.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g", "-XX:+UseG1GC",
        "-Dslf4j.internal.verbosity=ERROR"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
public abstract class StreamingBenchmark {

    /** See {@link Link}: tcp, nio, epoll, local or inprocess. */
    @Param({"tcp", "local", "inprocess"})
    public String link;

    /** The running stream; set by the subclass's setup. */
    protected StreamingFixture fixture;

    /** Stops the stream and checks that nothing was lost or leaked. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
    }
}
