package io.sluice.bench.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.bench.InProcessBench;
import io.sluice.bench.Main;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class LatencyCommandTest {

    private static final Pattern FIGURE = Pattern.compile("sluice\\.latency\\.1rec one_way_us_p50=([0-9.]+) "
            + "p99=([0-9.]+) p999=([0-9.]+) msgs_per_s=([0-9]+) cpu_cores=([0-9.]+)\n");

    private final InProcessBench bench = new InProcessBench();

    @Test
    void shortRun_printsOneFigureLineInTheFlinkPeersNamesAndReturnsEveryBuffer() {
        int status = bench.run("latency", "--warmup", "0", "--measure", "0.5");

        assertEquals(Main.EXIT_PASS, status, bench.err());
        Matcher figure = FIGURE.matcher(bench.out());
        assertTrue(figure.matches(), bench.out());
        double p50 = Double.parseDouble(figure.group(1));
        double p99 = Double.parseDouble(figure.group(2));
        double p999 = Double.parseDouble(figure.group(3));
        assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999, bench.out());
        assertTrue(Long.parseLong(figure.group(4)) > 0, "records arrived in the window: " + bench.out());
    }

    @Test
    void spinningConsumer_printsTheSpinFigure_andReturnsEveryBuffer() {
        int status = bench.run("latency", "--warmup", "0", "--measure", "0.5", "--spin-wait", "50us");

        assertEquals(Main.EXIT_PASS, status, bench.err());
        assertTrue(bench.out().startsWith("sluice.latency.spin.1rec one_way_us_p50="), bench.out());
    }

    @Test
    void spinWaitBeyondTheLibrarysRange_exitsWith2_namingTheRange() {
        assertEquals(Main.EXIT_USAGE, bench.run("latency", "--spin-wait", "20ms"));

        assertEquals("", bench.out());
        assertEquals("sluice-bench: --spin-wait: shuffle.input.spin-wait: invalid value '20ms'; must be between 0ms "
                + "and 10ms\n(sluice-bench --help lists the options)\n", bench.err());
    }

    @Test
    void wrongOptions_exitWith2_beforeMeasuring() {
        assertEquals(Main.EXIT_USAGE, bench.run("latency", "--measure", "0"));
        assertEquals(Main.EXIT_USAGE, bench.run("latency", "--transport", "kqueue"));

        assertEquals("", bench.out());
        assertEquals("sluice-bench: --measure 0.0 is out of range; use more than 0 seconds\n"
                + "(sluice-bench --help lists the options)\n"
                + "sluice-bench: --transport kqueue is not one of auto, nio, epoll\n"
                + "(sluice-bench --help lists the options)\n", bench.err());
    }
}
