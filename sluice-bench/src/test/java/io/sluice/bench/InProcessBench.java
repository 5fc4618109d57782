package io.sluice.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * sluice-bench run in the test's JVM through {@link Main#run}, with what it prints kept as text: every command line
 * run adds to {@link #out()} and {@link #err()}. One per test; used by the test's thread.
 */
public final class InProcessBench {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /**
     * @param args the command line, as after {@code java -jar sluice-bench.jar}
     * @return the exit status
     */
    public int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** @return everything printed on stdout so far */
    public String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** @return everything printed on stderr so far */
    public String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
