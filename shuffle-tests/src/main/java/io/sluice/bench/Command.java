package io.sluice.bench;

import java.util.Locale;

/** What sluice-bench does; the first argument, {@link #RUN} when absent. */
enum Command {
    /** Producers and consumers in one process, over loopback. */
    RUN("run", "producers and consumers in this process, environments connected over loopback (the default)"),
    /** Producer environment whose partitions another process consumes. */
    SERVE("serve", "run the producers and print the line that 'consume' needs, then wait until it has read everything"),
    /** Consumer of the partitions a 'serve' process offers. */
    CONSUME("consume", "read the partitions of a 'serve' process, from this or another machine");

    private final String word;
    private final String summary;

    Command(String word, String summary) {
        this.word = word;
        this.summary = summary;
    }

    /** @return the word on the command line */
    String word() {
        return word;
    }

    /** @return one line for the help */
    String summary() {
        return summary;
    }

    /**
     * @param word a command word
     * @return the command, or null when there is none of that name
     */
    static Command byWord(String word) {
        for (Command command : values()) {
            if (command.word.equals(word.toLowerCase(Locale.ROOT))) {
                return command;
            }
        }
        return null;
    }
}
