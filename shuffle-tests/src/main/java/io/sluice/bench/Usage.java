package io.sluice.bench;

/** The text of {@code --help}, built from {@link Command} and {@link BenchOption}. Stateless; any thread. */
final class Usage {

    /** Column where option help starts. */
    private static final int HELP_COLUMN = 34;
    /** Lines stay within a classic terminal's width. */
    private static final int WIDTH = 100;

    private Usage() {
    }

    /**
     * @param command the command whose options to list
     * @return the help, ending with a newline
     */
    static String text(Command command) {
        StringBuilder text = new StringBuilder();
        text.append("sluice-bench moves generated records through Sluice shuffle environments, verifies every record\n")
            .append("(count, order and checksum per channel) and reports throughput, latency and memory.\n\n")
            .append("Usage:\n");
        for (Command each : Command.values()) {
            line(text, "  sluice-bench " + (each == Command.RUN ? "[run]" : each.word()) + " [OPTIONS]", each.summary());
        }
        line(text, "  sluice-bench jmh [JMH OPTIONS]", "run the JMH benchmarks; 'jmh -h' lists JMH's options, 'jmh -l' the benchmarks");
        line(text, "  sluice-bench chaos [--seeds N] [--start S] | --seed S", "seeded fault injection; 'chaos --help' explains");
        text.append("\nOptions of '").append(command.word()).append("'")
            .append(command == Command.RUN ? " (see 'serve --help' and 'consume --help' for theirs)" : "").append(":\n");
        for (BenchOption option : BenchOption.values()) {
            if (option.appliesTo(command)) {
                String left = "  " + option.flag() + (option.isFlag() ? "" : " " + option.valueName());
                String defaultText = option.defaultText();
                line(text, left, option.help() + (defaultText == null ? "" : " [default: " + defaultText + "]"));
            }
        }
        text.append("\nSizes take binary units (32k, 64m, 4g); times take ns, us, ms, s, min, h or d (500us, 250ms, 30s).\n")
            .append("Exit status: 0 when every record arrived intact, 1 when the run failed, 2 for a wrong command line.\n");
        if (command == Command.SERVE || command == Command.CONSUME) {
            text.append("\nAcross machines: on the producer machine run 'sluice-bench serve --bind 0.0.0.0'; it prints one\n")
                .append("line starting with 'consume'; on the consumer machine run 'sluice-bench' followed by that line.\n");
        }
        return text.toString();
    }

    /** Writes {@code left}, then {@code right} from the help column on, wrapped at {@link #WIDTH}. */
    private static void line(StringBuilder text, String left, String right) {
        text.append(left);
        int column = left.length();
        if (column >= HELP_COLUMN) {
            text.append('\n');
            column = 0;
        }
        text.append(" ".repeat(HELP_COLUMN - column));
        column = HELP_COLUMN;
        for (String word : right.split(" ")) {
            if (column > HELP_COLUMN && column + 1 + word.length() > WIDTH) {
                text.append('\n').append(" ".repeat(HELP_COLUMN));
                column = HELP_COLUMN;
            } else if (column > HELP_COLUMN) {
                text.append(' ');
                column++;
            }
            text.append(word);
            column += word.length();
        }
        text.append('\n');
    }
}
