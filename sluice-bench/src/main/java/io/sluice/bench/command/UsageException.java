package io.sluice.bench.command;

/** A command line that cannot run; the message says what is wrong and how to write it instead. */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the command line, naming the option */
    UsageException(String message) {
        super(message);
    }
}
