package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MainTest {

    private final InProcessBench bench = new InProcessBench();

    @Test
    void wrongOption_exitsWith2AndSaysWhyOnStderr() {
        int status = bench.run("--producers", "-1");

        assertEquals(Main.EXIT_USAGE, status);
        assertEquals("", bench.out());
        assertEquals("sluice-bench: --producers -1 is out of range; use 1 to 4096\n"
                + "(sluice-bench --help lists the options)\n", bench.err());
    }

    @Test
    void help_listsEveryOptionOfTheCommandWithItsDefault() {
        int status = bench.run("--help");

        assertEquals(Main.EXIT_PASS, status);
        String help = bench.out().replaceAll("\n +", " "); // undo the wrapping of long help lines
        for (String flag : new String[] {"--producers=N", "--consumers=N", "--environments=N", "--record-size=SIZES",
            "--bytes=SIZE", "--duration=TIME", "--transport=", "--ssl=", "--flush-interval=TIME", "--memory=SIZE",
            "--segment-size=SIZE", "--buffers-per-channel=N", "--floating-buffers=N", "--partition-type=", "--warmup-bytes=SIZE", "--warmup-rounds=N",
            "--compression=", "--conf=KEY=VALUE", "--seed=N", "--timeout=TIME", "--sample-interval=TIME", "--progress=",
            "--json ", "--report=FILE.html", "--corrupt-record=CHANNEL:SEQ", "--help "}) {
            assertTrue(help.contains(flag), flag + " in\n" + help);
        }
        for (String flag : new String[] {"--connect", "--bind", "--port", "--partitions", "--subpartitions"}) {
            assertFalse(help.contains(flag), "run does not take " + flag + ":\n" + help);
        }
        assertTrue(help.contains("[default: 4g]"), help);
        assertTrue(help.contains("[default: 64m (library default)]"), help);
        assertTrue(help.contains("sluice-bench jmh"), help);
    }

    @Test
    void consumeHelp_listsTheOptionsServePrints() {
        assertEquals(Main.EXIT_PASS, bench.run("consume", "--help"));

        String help = bench.out();
        for (String flag : new String[] {"--connect=HOST:PORT", "--producer-id=ID", "--partitions=HEX,...", "--subpartitions=N"}) {
            assertTrue(help.contains(flag), flag + " in\n" + help);
        }
        assertTrue(help.contains("Across machines"), help);
    }

    @Test
    void helpWord_printsTheHelpToo() {
        assertEquals(Main.EXIT_PASS, bench.run("help"));
        assertTrue(bench.out().startsWith("sluice-bench moves generated records"), bench.out());
    }

    @Test
    void helpWordWithACommand_printsThatCommandsHelp() {
        assertEquals(Main.EXIT_PASS, bench.run("help", "chaos"));

        assertTrue(bench.out().contains("Usage: sluice-bench chaos [--seeds N] [--start S] | --seed S"), bench.out());
        assertTrue(bench.out().contains("--seeds=N"), bench.out());
    }

    @Test
    void chaosWithAWrongOption_exitsWith2_beforeRunningASeed() {
        assertEquals(Main.EXIT_USAGE, bench.run("chaos", "--seeds", "0"));
        assertEquals(Main.EXIT_USAGE, bench.run("chaos", "--seeds", "many"));

        assertEquals("", bench.out());
        assertEquals("sluice-bench: --seeds 0 is out of range; use 1 or more\n"
                + "(sluice-bench --help lists the options)\n"
                + "sluice-bench: Invalid value for option '--seeds': 'many' is not a long\n"
                + "(sluice-bench --help lists the options)\n", bench.err());
    }
}
