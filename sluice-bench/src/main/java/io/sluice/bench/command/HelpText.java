package io.sluice.bench.command;

/**
 * The fixed parts of {@code --help} that the picocli annotations of the commands share. Constants only.
 */
final class HelpText {

    /** Lines stay within a classic terminal's width. */
    static final int WIDTH = 100;

    /** What the tool does, first in the help of the top command. */
    static final String INTRO = "sluice-bench moves generated records through Sluice shuffle environments, verifies every"
            + " record%n(count, order and checksum per channel) and reports throughput, latency and memory.%n";

    /** How to write sizes and times, and the exit statuses. */
    static final String UNITS = "%nSizes take binary units (32k, 64m, 4g); times take ns, us, ms, s, min, h or d"
            + " (500us, 250ms, 30s).%nExit status: 0 when every record arrived intact, 1 when the run failed, 2 for a"
            + " wrong command line.";

    /** How serve and consume work across machines. */
    static final String ACROSS_MACHINES = "%nAcross machines: on the producer machine run 'sluice-bench serve --bind"
            + " 0.0.0.0'; it prints one%nline starting with 'consume'; on the consumer machine run 'sluice-bench'"
            + " followed by that line.";

    /** The commands picocli does not parse. */
    static final String JMH = "%nsluice-bench jmh [JMH OPTIONS] runs the JMH benchmarks; 'jmh -h' lists JMH's options,"
            + " 'jmh -l' the benchmarks.";

    private HelpText() {
    }
}
