package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import io.sluice.tests.support.ThrowawayPki;
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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the streaming throughput benchmarks share: the JVM flags of the Flink peer, the run lengths, the
 * {@link Link} and TLS parameters, and the teardown that fails the run when a record was lost or a buffer not returned.
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

    /**
     * TLS on the connections: off, or the provider (jdk, openssl) with mutual authentication and a throw-away CA.
     * The TLS variants of a benchmark: {@code -p ssl=off,jdk,openssl -p link=tcp}; TLS applies to TCP links only.
     */
    @Param({"off"})
    public String ssl;

    /** The running stream; set by the subclass's setup. */
    protected StreamingFixture fixture;

    /** The temporary directory of the throw-away CA, or null without TLS. */
    private Path tlsDirectory;

    /**
     * @param config the benchmark's configuration
     * @return the same with TLS when {@link #ssl} asks for it
     */
    protected ShuffleConfig withTls(ShuffleConfig config) throws Exception {
        if (ssl.equals("off")) {
            return config;
        }
        Link named = Link.named(link);
        if (named == Link.LOCAL || named == Link.INPROCESS) {
            throw new IllegalArgumentException("ssl=" + ssl + " needs a TCP link (tcp, nio, epoll), not " + link
                    + ": the local transport and in-process channels never use TLS");
        }
        tlsDirectory = Files.createTempDirectory("sluice-jmh-tls");
        return ThrowawayPki.create(tlsDirectory, "jmh", "PKCS12").configure(config, ssl);
    }

    /** Stops the stream and checks that nothing was lost or leaked. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
        if (tlsDirectory != null) {
            try (Stream<Path> files = Files.list(tlsDirectory)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.delete(file);
                }
            }
            Files.delete(tlsDirectory);
        }
    }
}
