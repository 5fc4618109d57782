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

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (IllegalArgumentException e) {
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
                case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, "--warmup"));
                case "--measure" -> measure = Double.parseDouble(value(args, ++i, "--measure"));
                case "--network-memory" -> networkMemory = MemorySize.parse(value(args, ++i, "--network-memory"));
                case "-h", "--help", "help" -> {
                    System.out.println(USAGE);
                    return 0;
                }
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("no figure named");
        }
        Timing timing = new Timing(warmup, measure);
        String figure = rest.get(0);
        if (figure.equals("netty")) {
            expect(rest, 2);
            NettyDiscardFigure.run(rest.get(1), timing);
            return 0;
        }
        // Validate the command line before starting two TaskManagers.
        switch (figure) {
            case "bulk" -> expect(rest, 2);
            case "records", "emit" -> {
                expect(rest, 5);
                RecordKind.named(rest.get(1));
            }
            case "latency" -> expect(rest, 1);
            default -> throw new IllegalArgumentException("unknown figure '" + figure + "'");
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
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static void expect(List<String> words, int count) {
        if (words.size() != count) {
            throw new IllegalArgumentException("'" + String.join(" ", words) + "' needs " + (count - 1)
                    + " argument(s)");
        }
    }

    private static int positive(String word) {
        int value;
        try {
            value = Integer.parseInt(word);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + word + "' is not a whole number");
        }
        if (value <= 0) {
            throw new IllegalArgumentException("'" + word + "' must be at least 1");
        }
        return value;
    }
}
