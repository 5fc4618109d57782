package io.sluice.bench.options;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** How the progress line is shown on stderr. */
public enum ProgressMode {
    /** TTY when stderr is a terminal, else PLAIN. */
    AUTO,
    /** One line rewritten in place a few times a second. */
    TTY,
    /** A new line every few seconds, for logs and pipes. */
    PLAIN,
    /** No progress output. */
    OFF;

    /** @return the mode as the command line writes it, e.g. {@code plain} */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return this mode, with AUTO resolved to TTY or PLAIN by looking at stderr */
    public ProgressMode resolve() {
        if (this != AUTO) {
            return this;
        }
        return stderrIsTerminal() ? TTY : PLAIN;
    }

    /**
     * Java cannot ask isatty(2) directly; on Linux, file descriptor 2 links to a /dev/pts or
     * /dev/tty device when stderr is a terminal. Elsewhere (no /proc), a console means a terminal.
     */
    private static boolean stderrIsTerminal() {
        Path stderr = Path.of("/proc/self/fd/2");
        if (!Files.isSymbolicLink(stderr)) {
            return System.console() != null;
        }
        try {
            String target = Files.readSymbolicLink(stderr).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tell whether stderr is a terminal; choose with --progress tty or plain", e);
        }
    }
}
