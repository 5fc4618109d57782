package io.sluice.bench;

import io.sluice.api.ConfigOption;
import io.sluice.api.ShuffleConfigValidator;
import io.sluice.api.ShuffleOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every command-line option: its name, value, default, help, the commands that take it, and
 * the library option it sets (if any). The parser, the help and error messages all read this
 * one table.
 */
enum BenchOption {
    PRODUCERS("producers", "N", "4",
            "producer tasks; each writes one partition with a subpartition per consumer",
            null, Command.RUN, Command.SERVE),
    CONSUMERS("consumers", "N", "4",
            "consumer tasks; each reads its subpartition of every partition (all-to-all)",
            null, Command.RUN, Command.SERVE),
    ENVIRONMENTS("environments", "N", "2",
            "shuffle environments in this process; producers go to the first half, consumers to the rest"
                    + " (1 = in-process channels only)",
            null, Command.RUN),
    RECORD_SIZE("record-size", "SIZES", "mixed",
            "record sizes: SIZE, MIN..MAX, SIZE:WEIGHT,... or mixed (" + io.sluice.tests.support.RecordSizes.MIXED
                    + "); at least 24 bytes",
            null, Command.RUN, Command.SERVE),
    BYTES("bytes", "SIZE", "4g",
            "total bytes of records to move (consume: what serve sends, for the progress line)",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    DURATION("duration", "TIME", null,
            "move records for this long instead of a number of bytes",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    TRANSPORT("transport", "auto|nio|epoll|local", null,
            "the Netty transport between environments (local = in-JVM, for run only)",
            ShuffleOptions.NETTY_TRANSPORT, Command.RUN, Command.SERVE, Command.CONSUME),
    SSL("ssl", "jdk|openssl", null,
            "TLS with mutual authentication on every connection, with this provider; without"
                    + " --conf shuffle.security.ssl.keystore=... run and serve make a throw-away CA and certificate",
            ShuffleOptions.SSL_PROVIDER, Command.RUN, Command.SERVE, Command.CONSUME),
    FLUSH_INTERVAL("flush-interval", "TIME", null,
            "longest time a record waits in a partly filled buffer (0 = flush after every record)",
            ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Command.RUN, Command.SERVE),
    MEMORY("memory", "SIZE", null,
            "network memory of each environment",
            ShuffleOptions.MEMORY_TOTAL, Command.RUN, Command.SERVE, Command.CONSUME),
    SEGMENT_SIZE("segment-size", "SIZE", null,
            "size of one network buffer",
            ShuffleOptions.MEMORY_SEGMENT_SIZE, Command.RUN, Command.SERVE, Command.CONSUME),
    BUFFERS_PER_CHANNEL("buffers-per-channel", "N", null,
            "exclusive buffers of each remote input channel",
            ShuffleOptions.BUFFERS_PER_CHANNEL, Command.RUN, Command.CONSUME),
    FLOATING_BUFFERS("floating-buffers", "N", null,
            "floating buffers of each input gate",
            ShuffleOptions.FLOATING_BUFFERS_PER_GATE, Command.RUN, Command.CONSUME),
    PARTITION_TYPE("partition-type", "pipelined|blocking", "pipelined",
            "pipelined streams while producing; blocking writes everything to disk first (write phase), then reads"
                    + " it (read phase), each timed, next to dd's limits of the temp directory",
            null, Command.RUN),
    COMPRESSION("compression", "none|lz4", null,
            "compression of data buffers on the wire and on disk",
            ShuffleOptions.COMPRESSION_CODEC, Command.RUN, Command.SERVE, Command.CONSUME),
    CONF("conf", "KEY=VALUE", null,
            "any other library option, e.g. --conf shuffle.netty.server-threads=1; repeatable",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    SEED("seed", "N", "1",
            "seed of record sizes and payloads; the same seed moves the same bytes",
            null, Command.RUN, Command.SERVE),
    TIMEOUT("timeout", "TIME", null,
            "fail the run when it has not finished by then [default: 10min; with --duration: the duration + 10min]",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    SAMPLE_INTERVAL("sample-interval", "TIME", "1min",
            "soak sampling: print direct memory, heap after GC, network buffers in use and open connections this"
                    + " often; --json has the series and whether each stayed flat after warm-up",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    PROGRESS("progress", "auto|tty|plain|off", "auto",
            "progress on stderr: in place on a terminal (tty), a line every few seconds (plain), or none",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    JSON("json", null, null,
            "print the summary as one JSON object on stdout instead of the table",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    REPORT("report", "FILE.html", null,
            "also write a self-contained HTML page with charts of the run (throughput and network-buffer pool usage"
                    + " over time, latency percentiles, writer backpressure) to this file",
            null, Command.RUN, Command.SERVE, Command.CONSUME),
    BIND("bind", "ADDRESS", "127.0.0.1",
            "address the data port listens on (0.0.0.0 for every interface)",
            null, Command.SERVE),
    PORT("port", "N", "0",
            "data port (0 = any free port)",
            ShuffleOptions.NETTY_PORT, Command.SERVE),
    CONNECT("connect", "HOST:PORT", null,
            "data address of the serve process (required; serve prints it)",
            null, Command.CONSUME),
    PRODUCER_ID("producer-id", "ID", null,
            "resource id of the serve process's environment (required; serve prints it)",
            null, Command.CONSUME),
    PARTITIONS("partitions", "HEX,...", null,
            "ids of the partitions to read, 32 hex digits each (required; serve prints them)",
            null, Command.CONSUME),
    SUBPARTITIONS("subpartitions", "N", null,
            "subpartitions of each partition; one consumer task reads each (required; serve prints it)",
            null, Command.CONSUME),
    CORRUPT_RECORD("corrupt-record", "CHANNEL:SEQ", null,
            "testing aid: damage that record after checksumming it, to see verification fail"
                    + " (channel = producer x consumers + consumer)",
            null, Command.RUN, Command.SERVE),
    HELP("help", null, null,
            "print this help",
            null, Command.RUN, Command.SERVE, Command.CONSUME);

    private final String name;
    private final String valueName;
    private final String defaultText;
    private final String help;
    private final ConfigOption<?> shuffleOption;
    private final Set<Command> commands;

    BenchOption(String name, String valueName, String defaultText, String help,
                ConfigOption<?> shuffleOption, Command first, Command... rest) {
        this.name = name;
        this.valueName = valueName;
        this.defaultText = defaultText;
        this.help = help;
        this.shuffleOption = shuffleOption;
        this.commands = EnumSet.of(first, rest);
    }

    /** @return the option as written, e.g. {@code --producers} */
    String flag() {
        return "--" + name;
    }

    /** @return the name of its value, e.g. {@code N}; null for a flag that takes none */
    String valueName() {
        return valueName;
    }

    /** @return true when the option takes no value */
    boolean isFlag() {
        return valueName == null;
    }

    /** @return one line of help */
    String help() {
        return help;
    }

    /** @return the default as written on the command line, or null when there is none */
    String defaultText() {
        if (shuffleOption != null) {
            return format(shuffleOption.defaultValue()) + " (library default)";
        }
        return defaultText;
    }

    /** @return the library option it sets, or null */
    ConfigOption<?> shuffleOption() {
        return shuffleOption;
    }

    /** @return true when {@code command} takes this option */
    boolean appliesTo(Command command) {
        return commands.contains(command);
    }

    /**
     * @param name an option without its dashes
     * @return the option of that name, or null
     */
    static BenchOption byName(String name) {
        for (BenchOption option : values()) {
            if (option.name.equals(name)) {
                return option;
            }
        }
        return null;
    }

    /**
     * @param name an unknown option without its dashes
     * @return the option whose name is closest to it
     */
    static BenchOption closest(String name) {
        List<String> names = new ArrayList<>();
        for (BenchOption option : values()) {
            names.add(option.name);
        }
        String closest = ShuffleConfigValidator.closestName(name, names);
        for (BenchOption option : values()) {
            if (option.name.equals(closest)) {
                return option;
            }
        }
        return null;
    }

    /**
     * Rewrites a library configuration problem in command-line terms: each library key this
     * tool has an option for becomes that option.
     *
     * @param problem e.g. "shuffle.memory.total: 1k is less than one segment (shuffle.memory.segment-size = 32k)"
     * @return e.g. "--memory: 1k is less than one segment (--segment-size = 32k)"
     */
    static String inCommandLineTerms(String problem) {
        return replaceKeys(problem, false);
    }

    /**
     * Adds the command-line option after each library key a runtime message names, so the
     * reader of "raise shuffle.memory.total" knows to pass {@code --memory}.
     *
     * @param message a library message
     * @return the message with " (--option)" after each key this tool has an option for
     */
    static String withOptionHints(String message) {
        return message == null ? null : replaceKeys(message, true);
    }

    private static String replaceKeys(String text, boolean keepKey) {
        String result = text;
        for (BenchOption option : values()) {
            if (option.shuffleOption != null) {
                // A key ends where the next character cannot continue it, so "x.port" never matches inside "x.port-range".
                Pattern key = Pattern.compile(Pattern.quote(option.shuffleOption.key()) + "(?![\\w.-])");
                String replacement = keepKey ? option.shuffleOption.key() + " (" + option.flag() + ")" : option.flag();
                result = key.matcher(result).replaceAll(Matcher.quoteReplacement(replacement));
            }
        }
        return result;
    }

    private static String format(Object value) {
        if (value instanceof Duration duration) {
            return duration.toMillis() + "ms";
        }
        if (value instanceof Long bytes) {
            return Units.byteSize(bytes);
        }
        return String.valueOf(value);
    }
}
