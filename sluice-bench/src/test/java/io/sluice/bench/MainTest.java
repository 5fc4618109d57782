package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void wrongOption_exitsWith2AndSaysWhyOnStderr() {
        int status = run("--producers", "-1");

        assertEquals(Main.EXIT_USAGE, status);
        assertEquals("", text(out));
        assertEquals("sluice-bench: --producers -1 is out of range; use 1 to 4096\n"
                + "(sluice-bench --help lists the options)\n", text(err));
    }

    @Test
    void help_listsEveryOptionOfTheCommandWithItsDefault() {
        int status = run("--help");

        assertEquals(Main.EXIT_PASS, status);
        String help = text(out).replaceAll("\n +", " "); // undo the wrapping of long help lines
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
        assertEquals(Main.EXIT_PASS, run("consume", "--help"));

        String help = text(out);
        for (String flag : new String[] {"--connect=HOST:PORT", "--producer-id=ID", "--partitions=HEX,...", "--subpartitions=N"}) {
            assertTrue(help.contains(flag), flag + " in\n" + help);
        }
        assertTrue(help.contains("Across machines"), help);
    }

    @Test
    void helpWord_printsTheHelpToo() {
        assertEquals(Main.EXIT_PASS, run("help"));
        assertTrue(text(out).startsWith("sluice-bench moves generated records"), text(out));
    }

    @Test
    void helpWordWithACommand_printsThatCommandsHelp() {
        assertEquals(Main.EXIT_PASS, run("help", "chaos"));

        assertTrue(text(out).contains("Usage: sluice-bench chaos [--seeds N] [--start S] | --seed S"), text(out));
        assertTrue(text(out).contains("--seeds=N"), text(out));
    }

    @Test
    void chaosWithAWrongOption_exitsWith2_beforeRunningASeed() {
        assertEquals(Main.EXIT_USAGE, run("chaos", "--seeds", "0"));
        assertEquals(Main.EXIT_USAGE, run("chaos", "--seeds", "many"));

        assertEquals("", text(out));
        assertEquals("sluice-bench: --seeds 0 is out of range; use 1 or more\n"
                + "(sluice-bench --help lists the options)\n"
                + "sluice-bench: Invalid value for option '--seeds': 'many' is not a long\n"
                + "(sluice-bench --help lists the options)\n", text(err));
    }

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(ByteArrayOutputStream stream) {
        return stream.toString(StandardCharsets.UTF_8);
    }
}
