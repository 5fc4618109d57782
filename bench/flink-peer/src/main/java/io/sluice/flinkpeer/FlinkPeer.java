package io.sluice.flinkpeer;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Command line of the Flink peer: measures one figure in this JVM and prints one line
 * ({@code name key=value ...}) on stdout; context lines start with '#'. Exit status 0 when the figure was
 * printed, 1 when it failed, 2 for a wrong command line.
 *
 * <pre>
 * FlinkPeer [--warmup S] [--measure S] [--network-memory SIZE] FIGURE ...
 *   bulk CHANNELS                                  flink.bulk.Nch
 *   records long|b100 WRITERS CHANNELS FLUSH_MS    flink.records.KIND.Ww.Cch.Fms  (RecordWriter)
 *   emit long|b100 WRITERS CHANNELS FLUSH_MS       flink.emit.KIND.Ww.Cch.Fms     (emitRecord, heap ByteBuffer)
 *   latency                                        flink.latency.1rec
 *   netty nio|epoll                                netty.TRANSPORT.discard.32k    (raw Netty, no Flink)
 * </pre>
 */
public final class FlinkPeer {

    private static final String USAGE = String.join("\n",
            "usage: FlinkPeer [--warmup S] [--measure S] [--network-memory SIZE] FIGURE ...",
            "  bulk CHANNELS                                 32 KiB records, CHANNELS subpartitions, a gate and thread each",
            "  records long|b100 WRITERS CHANNELS FLUSH_MS   RecordWriter -> deserializer, one consumer thread",
            "  emit long|b100 WRITERS CHANNELS FLUSH_MS      emitRecord(heap ByteBuffer) round-robin -> deserializer",
            "  latency                                       one LongValue in flight, flush after every record",
            "  netty nio|epoll                               raw Netty loopback discard, 32 KiB direct buffers",
            "defaults: --warmup 3 --measure 10 --network-memory 64m (per TaskManager)");

    private FlinkPeer() {
    }

    /** A wrong command line (exit status 2), as opposed to a failure while measuring. */
    private static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (UsageException e) {
            System.err.println("FlinkPeer: " + e.getMessage());
            System.err.println(USAGE);
            status = 2;
        } catch (Throwable t) {
            t.printStackTrace();
            System.out.println("# FAILED: " + String.join(" ", args) + ": " + t);
            status = 1;
        }
        System.out.flush();
        // Flink and Netty leave threads behind; the figure is printed, so end the JVM now.
        Runtime.getRuntime().halt(status);
    }

    private static int run(String[] args) throws Exception {
        double warmup = 3;
        double measure = 10;
        MemorySize networkMemory = MemorySize.parse("64m");
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup" -> warmup = seconds(value(args, ++i, "--warmup"));
                case "--measure" -> measure = seconds(value(args, ++i, "--measure"));
                case "--network-memory" -> networkMemory = memory(value(args, ++i, "--network-memory"));
                case "-h", "--help", "help" -> {
                    System.out.println(USAGE);
                    return 0;
                }
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty()) {
            throw new UsageException("no figure named");
        }
        if (!(warmup >= 0) || !(measure > 0)) {
            throw new UsageException("--warmup must be >= 0 and --measure > 0 seconds, got " + warmup + " and "
                    + measure);
        }
        Timing timing = new Timing(warmup, measure);
        String figure = rest.get(0);
        if (figure.equals("netty")) {
            expect(rest, 2);
            if (!rest.get(1).equals("nio") && !rest.get(1).equals("epoll")) {
                throw new UsageException("netty needs nio or epoll, not '" + rest.get(1) + "'");
            }
            NettyDiscardFigure.run(rest.get(1), timing);
            return 0;
        }
        // Validate the command line before starting two TaskManagers.
        switch (figure) {
            case "bulk" -> expect(rest, 2);
            case "records", "emit" -> {
                expect(rest, 5);
                if (!rest.get(1).equals("long") && !rest.get(1).equals("b100")) {
                    throw new UsageException(figure + " needs long or b100, not '" + rest.get(1) + "'");
                }
                for (int i = 2; i < 5; i++) {
                    positive(rest.get(i));
                }
            }
            case "latency" -> expect(rest, 1);
            default -> throw new UsageException("unknown figure '" + figure + "'");
        }
        try (TaskManagerPair flink = new TaskManagerPair(new Configuration(), networkMemory)) {
            switch (figure) {
                case "bulk" -> BulkFigure.run(flink, positive(rest.get(1)), timing);
                case "records", "emit" -> RecordFigure.run(flink,
                        figure.equals("records") ? RecordFigure.Producer.RECORD_WRITER : RecordFigure.Producer.EMIT,
                        RecordKind.named(rest.get(1)), positive(rest.get(2)), positive(rest.get(3)),
                        positive(rest.get(4)), timing);
                default -> LatencyFigure.run(flink, timing);
            }
        }
        return 0;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static void expect(List<String> words, int count) {
        if (words.size() != count) {
            throw new UsageException("'" + String.join(" ", words) + "' needs " + (count - 1)
                    + " argument(s)");
        }
    }

    private static int positive(String word) {
        int value;
        try {
            value = Integer.parseInt(word);
        } catch (NumberFormatException e) {
            throw new UsageException("'" + word + "' is not a whole number");
        }
        if (value <= 0) {
            throw new UsageException("'" + word + "' must be at least 1");
        }
        return value;
    }

    private static double seconds(String word) {
        try {
            return Double.parseDouble(word);
        } catch (NumberFormatException e) {
            throw new UsageException("'" + word + "' is not a number of seconds");
        }
    }

    private static MemorySize memory(String word) {
        try {
            return MemorySize.parse(word);
        } catch (IllegalArgumentException e) {
            throw new UsageException("'" + word + "' is not a memory size (e.g. 64m): " + e.getMessage());
        }
    }
}
