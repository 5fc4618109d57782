package io.sluice.bench;

import io.sluice.api.ByteSizes;
import io.sluice.api.Durations;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleConfigValidator;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordSizes;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a command line into {@link BenchOptions}, or a {@link UsageException} whose message
 * names the option, what is wrong, and an example of a right value. Library options are checked
 * by the library's own {@link ShuffleConfigValidator} and reported under their option names.
 * Stateless; any thread.
 */
final class BenchArguments {

    /** More tasks than this is a typo, not a benchmark (each task is a thread). */
    private static final int MAX_TASKS = 4096;
    /** Channels are producers x consumers; each needs buffers on both sides. */
    private static final int MAX_CHANNELS = 100_000;
    private static final int MAX_ENVIRONMENTS = 64;
    private static final int MAX_PORT = 65_535;

    private BenchArguments() {
    }

    /**
     * @param args the command line, without the program
     * @return the checked options
     * @throws UsageException naming the first problem
     */
    static BenchOptions parse(String[] args) throws UsageException {
        int first = 0;
        Command command = Command.RUN;
        if (args.length > 0 && !args[0].startsWith("-")) {
            command = Command.byWord(args[0]);
            if (command == null) {
                throw new UsageException("unknown command '" + args[0] + "'; the commands are run (the default), serve, consume"
                        + " and jmh; see --help");
            }
            first = 1;
        }
        Map<BenchOption, String> values = new EnumMap<>(BenchOption.class);
        Map<String, String> conf = new LinkedHashMap<>();
        for (int i = first; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new UsageException("unexpected argument '" + arg + "'; options start with --, see --help");
            }
            int equals = arg.indexOf('=');
            String name = arg.substring(2, equals < 0 ? arg.length() : equals);
            BenchOption option = BenchOption.byName(name);
            if (option == null) {
                throw new UsageException("unknown option --" + name + "; did you mean " + BenchOption.closest(name).flag() + "?");
            }
            if (!option.appliesTo(command)) {
                throw new UsageException(option.flag() + " is not an option of '" + command.word() + "'; see "
                        + command.word() + " --help");
            }
            String value;
            if (option.isFlag()) {
                if (equals >= 0) {
                    throw new UsageException(option.flag() + " takes no value");
                }
                value = "";
            } else if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageException(option.flag() + " needs a value: " + option.flag() + " " + option.valueName());
            }
            if (option == BenchOption.CONF) {
                addConf(value, conf);
            } else if (values.put(option, value) != null) {
                throw new UsageException(option.flag() + " is given twice");
            }
        }
        if (values.containsKey(BenchOption.HELP)) {
            return new BenchOptions(command, true, 0, 0, 0, null, ShuffleConfig.empty(), null, null, ProgressMode.OFF,
                    false, null, null, false, null);
        }
        return typed(command, values, conf);
    }

    private static BenchOptions typed(Command command, Map<BenchOption, String> values, Map<String, String> conf)
            throws UsageException {
        ShuffleConfig config = shuffleConfig(command, values, conf);
        ServeTicket ticket = command == Command.CONSUME ? ticket(values) : null;
        int producers = ticket != null ? ticket.partitions().size() : intValue(values, BenchOption.PRODUCERS, 1, MAX_TASKS);
        int consumers = ticket != null ? ticket.subpartitions() : intValue(values, BenchOption.CONSUMERS, 1, MAX_TASKS);
        if ((long) producers * consumers > MAX_CHANNELS) {
            throw new UsageException(BenchOption.PRODUCERS.flag() + " x " + BenchOption.CONSUMERS.flag() + " = "
                    + (long) producers * consumers + " channels, more than " + MAX_CHANNELS + "; lower one of them");
        }
        int environments = command == Command.RUN ? intValue(values, BenchOption.ENVIRONMENTS, 1, MAX_ENVIRONMENTS) : 1;
        Workload workload = workload(values, producers, consumers);
        Duration timeout = timeout(values, workload);
        Duration sampleInterval = duration(values, BenchOption.SAMPLE_INTERVAL);
        if (sampleInterval.isZero()) {
            throw new UsageException(BenchOption.SAMPLE_INTERVAL.flag() + " must be longer than 0, e.g. --sample-interval 1min");
        }
        ProgressMode progress = enumValue(values, BenchOption.PROGRESS);
        String bind = values.getOrDefault(BenchOption.BIND, BenchOption.BIND.defaultText());
        return new BenchOptions(command, false, producers, consumers, environments, workload, config, timeout,
                sampleInterval, progress, values.containsKey(BenchOption.JSON), bind, ticket, blocking(values),
                report(values));
    }

    /** A timed run brings its own deadline: without --timeout it gets its duration plus the default timeout. */
    private static Duration timeout(Map<BenchOption, String> values, Workload workload) throws UsageException {
        if (!values.containsKey(BenchOption.TIMEOUT)) {
            return workload.timed() ? workload.duration().plus(BenchOptions.DEFAULT_TIMEOUT) : BenchOptions.DEFAULT_TIMEOUT;
        }
        Duration timeout = duration(values, BenchOption.TIMEOUT);
        if (timeout.isZero()) {
            throw new UsageException(BenchOption.TIMEOUT.flag() + " must be longer than 0, e.g. --timeout 5min");
        }
        return timeout;
    }

    private static void addConf(String value, Map<String, String> conf) throws UsageException {
        int equals = value.indexOf('=');
        if (equals <= 0) {
            throw new UsageException(BenchOption.CONF.flag() + " '" + value + "' is not KEY=VALUE, e.g. "
                    + BenchOption.CONF.flag() + " shuffle.netty.server-threads=1");
        }
        String key = value.substring(0, equals).trim();
        if (!key.startsWith("shuffle.") && !key.equals(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS.key())) {
            throw new UsageException(BenchOption.CONF.flag() + " '" + key + "' is not a library option; they start with 'shuffle.'"
                    + " (or are " + ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS.key() + ")");
        }
        for (BenchOption option : BenchOption.values()) {
            if (option.shuffleOption() != null && option.shuffleOption().key().equals(key)) {
                throw new UsageException(BenchOption.CONF.flag() + " " + key + ": use " + option.flag() + " instead");
            }
        }
        conf.put(key, value.substring(equals + 1).trim());
    }

    private static ShuffleConfig shuffleConfig(Command command, Map<BenchOption, String> values, Map<String, String> conf)
            throws UsageException {
        Map<String, String> settings = new LinkedHashMap<>(conf);
        for (Map.Entry<BenchOption, String> entry : values.entrySet()) {
            if (entry.getKey().shuffleOption() != null) {
                settings.put(entry.getKey().shuffleOption().key(), entry.getValue());
            }
        }
        if (values.containsKey(BenchOption.SSL)) {
            settings.put(ShuffleOptions.SSL_ENABLED.key(), "true");
        }
        ShuffleConfig config = ShuffleConfig.fromMap(settings);
        List<String> problems = ShuffleConfigValidator.problems(config);
        if (!problems.isEmpty()) {
            List<String> lines = new ArrayList<>();
            for (String problem : problems) {
                lines.add(BenchOption.inCommandLineTerms(problem));
            }
            throw new UsageException(String.join("\n", lines));
        }
        String transport = values.get(BenchOption.TRANSPORT);
        if (command != Command.RUN && "local".equals(transport)) {
            throw new UsageException(BenchOption.TRANSPORT.flag() + " local connects environments inside one process only;"
                    + " '" + command.word() + "' talks to another process: use auto, nio or epoll");
        }
        return config;
    }

    private static Workload workload(Map<BenchOption, String> values, int producers, int consumers) throws UsageException {
        RecordSizes sizes;
        try {
            sizes = RecordSizes.parse(values.getOrDefault(BenchOption.RECORD_SIZE, BenchOption.RECORD_SIZE.defaultText()));
        } catch (IllegalArgumentException e) {
            throw new UsageException(BenchOption.RECORD_SIZE.flag() + ": " + e.getMessage());
        }
        if (sizes.min() < RecordFormat.HEADER_BYTES) {
            throw new UsageException(BenchOption.RECORD_SIZE.flag() + ": " + sizes.min() + " bytes is too small: every record carries a "
                    + RecordFormat.HEADER_BYTES + "-byte header (channel, sequence, timestamp, checksum), so use at least "
                    + RecordFormat.HEADER_BYTES);
        }
        if (values.containsKey(BenchOption.BYTES) && values.containsKey(BenchOption.DURATION)) {
            throw new UsageException(BenchOption.BYTES.flag() + " and " + BenchOption.DURATION.flag() + " exclude each other: give one");
        }
        long bytes = 0;
        Duration duration = null;
        if (values.containsKey(BenchOption.DURATION)) {
            duration = duration(values, BenchOption.DURATION);
            if (duration.isZero()) {
                throw new UsageException(BenchOption.DURATION.flag() + " must be longer than 0, e.g. --duration 30s");
            }
        } else {
            bytes = bytes(values, BenchOption.BYTES);
            if (bytes < 1) {
                throw new UsageException(BenchOption.BYTES.flag() + " must be at least 1 byte, e.g. --bytes 1g");
            }
        }
        long seed = longValue(values, BenchOption.SEED);
        CorruptRecord corrupt = corruptRecord(values, producers, consumers);
        return new Workload(sizes, bytes, duration, seed, corrupt);
    }

    private static CorruptRecord corruptRecord(Map<BenchOption, String> values, int producers, int consumers)
            throws UsageException {
        String text = values.get(BenchOption.CORRUPT_RECORD);
        if (text == null) {
            return null;
        }
        int colon = text.indexOf(':');
        String example = "; e.g. " + BenchOption.CORRUPT_RECORD.flag() + " 1:1000 damages record 1000 of channel 1";
        int channel;
        long sequence;
        try {
            channel = Integer.parseInt(text.substring(0, Math.max(colon, 0)).trim());
            sequence = Long.parseLong(text.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            throw new UsageException(BenchOption.CORRUPT_RECORD.flag() + " '" + text + "' is not CHANNEL:SEQUENCE" + example);
        }
        if (channel < 0 || channel >= producers * consumers || sequence < 0) {
            throw new UsageException(BenchOption.CORRUPT_RECORD.flag() + " " + text + ": channels are 0.."
                    + (producers * consumers - 1) + " and sequences start at 0" + example);
        }
        return new CorruptRecord(channel, sequence);
    }

    private static ServeTicket ticket(Map<BenchOption, String> values) throws UsageException {
        for (BenchOption required : List.of(BenchOption.CONNECT, BenchOption.PRODUCER_ID, BenchOption.PARTITIONS,
                BenchOption.SUBPARTITIONS)) {
            if (!values.containsKey(required)) {
                throw new UsageException("consume needs " + required.flag() + " " + required.valueName()
                        + "; pass the line that 'sluice-bench serve' prints");
            }
        }
        String connect = values.get(BenchOption.CONNECT).trim();
        int colon = connect.lastIndexOf(':');
        String host = colon > 0 ? connect.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // [::1]:port
        }
        int port;
        try {
            port = colon > 0 ? Integer.parseInt(connect.substring(colon + 1)) : -1;
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > MAX_PORT) {
            throw new UsageException(BenchOption.CONNECT.flag() + " '" + connect + "' is not HOST:PORT with a port from 1 to "
                    + MAX_PORT + ", e.g. --connect 10.0.0.5:41234");
        }
        String producerId = values.get(BenchOption.PRODUCER_ID).trim();
        if (producerId.isEmpty()) {
            throw new UsageException(BenchOption.PRODUCER_ID.flag() + " must not be empty");
        }
        List<ResultPartitionId> partitions = new ArrayList<>();
        for (String hex : values.get(BenchOption.PARTITIONS).split(",")) {
            try {
                partitions.add(ResultPartitionId.fromString(hex.trim()));
            } catch (IllegalArgumentException e) {
                throw new UsageException(BenchOption.PARTITIONS.flag() + ": '" + hex.trim()
                        + "' is not a partition id (32 hex digits, as serve prints them)");
            }
        }
        if (partitions.size() > MAX_TASKS) {
            throw new UsageException(BenchOption.PARTITIONS.flag() + " lists " + partitions.size() + " partitions, more than "
                    + MAX_TASKS);
        }
        int subpartitions = intValue(values, BenchOption.SUBPARTITIONS, 1, MAX_TASKS);
        return new ServeTicket(host, port, producerId, List.copyOf(partitions), subpartitions);
    }

    private static int intValue(Map<BenchOption, String> values, BenchOption option, int min, int max)
            throws UsageException {
        long value = longValue(values, option);
        if (value < min || value > max) {
            throw new UsageException(option.flag() + " " + value + " is out of range; use " + min + " to " + max);
        }
        return (int) value;
    }

    private static long longValue(Map<BenchOption, String> values, BenchOption option) throws UsageException {
        String text = valueOrDefault(values, option);
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option.flag() + " '" + text + "' is not a whole number, e.g. " + option.flag() + " 4");
        }
    }

    private static long bytes(Map<BenchOption, String> values, BenchOption option) throws UsageException {
        try {
            return ByteSizes.parse(valueOrDefault(values, option));
        } catch (IllegalArgumentException e) {
            throw new UsageException(option.flag() + ": " + e.getMessage());
        }
    }

    private static Duration duration(Map<BenchOption, String> values, BenchOption option) throws UsageException {
        try {
            return Durations.parse(valueOrDefault(values, option));
        } catch (IllegalArgumentException e) {
            throw new UsageException(option.flag() + ": " + e.getMessage());
        }
    }

    /** The page's directory must exist: a typo is reported before a long run, not after it. */
    private static Path report(Map<BenchOption, String> values) throws UsageException {
        String text = values.get(BenchOption.REPORT);
        if (text == null) {
            return null;
        }
        Path file;
        try {
            file = Path.of(text.trim()).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new UsageException(BenchOption.REPORT.flag() + " '" + text + "' is not a file name: " + e.getReason());
        }
        if (text.isBlank() || Files.isDirectory(file)) {
            throw new UsageException(BenchOption.REPORT.flag() + " '" + text + "' is not a file; name the page to"
                    + " write, e.g. " + BenchOption.REPORT.flag() + " run.html");
        }
        if (!Files.isDirectory(file.getParent())) {
            throw new UsageException(BenchOption.REPORT.flag() + " " + text + ": the directory " + file.getParent()
                    + " does not exist; create it or write the page elsewhere");
        }
        return file;
    }

    private static boolean blocking(Map<BenchOption, String> values) throws UsageException {
        String text = valueOrDefault(values, BenchOption.PARTITION_TYPE).trim();
        if (text.equalsIgnoreCase("blocking")) {
            return true;
        }
        if (text.equalsIgnoreCase("pipelined")) {
            return false;
        }
        throw new UsageException(BenchOption.PARTITION_TYPE.flag() + " '" + text + "' is not one of pipelined blocking");
    }

    private static ProgressMode enumValue(Map<BenchOption, String> values, BenchOption option) throws UsageException {
        String text = valueOrDefault(values, option);
        for (ProgressMode mode : ProgressMode.values()) {
            if (mode.name().equalsIgnoreCase(text.trim())) {
                return mode;
            }
        }
        throw new UsageException(option.flag() + " '" + text + "' is not one of " + option.valueName().replace('|', ' '));
    }

    private static String valueOrDefault(Map<BenchOption, String> values, BenchOption option) {
        String text = values.get(option);
        return text != null ? text : option.defaultText();
    }
}
