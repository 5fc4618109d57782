package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        for (BenchOption option : BenchOption.values()) {
            assertEquals(option.appliesTo(Command.RUN), help.contains(option.flag() + " "), option.flag() + " in\n" + help);
        }
        assertTrue(help.contains("[default: 4g]"), help);
        assertTrue(help.contains("[default: 64m (library default)]"), help);
        assertTrue(help.contains("sluice-bench jmh"), help);
    }

    @Test
    void consumeHelp_listsTheOptionsServePrints() {
        assertEquals(Main.EXIT_PASS, run("consume", "--help"));

        String help = text(out);
        for (String flag : new String[] {"--connect HOST:PORT", "--producer-id ID", "--partitions HEX,...", "--subpartitions N"}) {
            assertTrue(help.contains(flag), flag + " in\n" + help);
        }
        assertTrue(help.contains("Across machines"), help);
    }

    @Test
    void helpWord_printsTheHelpToo() {
        assertEquals(Main.EXIT_PASS, run("help"));
        assertTrue(text(out).startsWith("sluice-bench moves generated records"), text(out));
    }

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(ByteArrayOutputStream stream) {
        return stream.toString(StandardCharsets.UTF_8);
    }
}
