package io.sluice.bench.trace;

import io.sluice.buffers.BufferTrace.Event;
import io.sluice.buffers.BufferTrace.Hop;
import io.sluice.buffers.BufferTrace;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns a buffer trace (a file written with {@code -Dsluice.trace=<entries> -Dsluice.trace.file=<path>}) into a
 * per-hop latency table in Markdown: for each hop, how many buffers the trace saw pass it, the median and 99th
 * percentile of its latency from the hop before, and how often the buffer changed threads there; then the
 * end-to-end figures and the thread hand-offs per buffer.
 *
 * <p>Usage: {@code java -cp sluice-bench.jar io.sluice.bench.trace.TraceTable <trace-file> [title]}.
 */
public final class TraceTable {

    private TraceTable() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: TraceTable <trace-file> [title]");
            System.exit(2);
        }
        List<Event> events = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                events.add(Event.parse(line));
            }
        }
        String title = args.length > 1 ? args[1] : args[0];
        print(TraceLinker.link(events), title, System.out);
        printMessageCounts(events, System.out);
    }

    /** Writes the table of {@code journeys} to {@code out}. */
    public static void print(List<BufferJourney> journeys, String title, PrintStream out) {
        // The first and last journeys of a ring are often cut (their early hops overwritten, late ones not yet
        // recorded): only journeys that reached the consumer count.
        List<BufferJourney> complete = new ArrayList<>();
        for (BufferJourney journey : journeys) {
            if (journey.has(Hop.COMMIT) && journey.has(Hop.TAKE)) {
                complete.add(journey);
            }
        }
        out.printf(Locale.ROOT, "%s: %d buffers written, %d traced from commit to consumer%n%n", title,
                journeys.size(), complete.size());
        out.println("| hop | measured from | buffers | p50 µs | p99 µs | thread change here |");
        out.println("|---|---|---:|---:|---:|---:|");
        for (Hop hop : Hop.values()) {
            if (hop == Hop.COMMIT || hop == Hop.CREDIT_NOTIFY) {
                continue; // the first hop, and a count per run (printMessageCounts), not a hop of one buffer
            }
            List<Long> latencies = new ArrayList<>();
            int handOffs = 0;
            Set<String> from = new TreeSet<>(Comparator.reverseOrder());
            for (BufferJourney journey : complete) {
                Hop before = journey.from(hop);
                if (!journey.has(hop) || before == null) {
                    continue;
                }
                latencies.add(journey.nanos(hop) - journey.nanos(before));
                from.add(before.name());
                if (journey.handOffAt(hop)) {
                    handOffs++;
                }
            }
            row(out, hop.name(), from.isEmpty() ? "-" : String.join(" or ", from), latencies, handOffs);
        }
        List<Long> toTake = new ArrayList<>();
        List<Long> toCredit = new ArrayList<>();
        long[] handOffs = new long[complete.size()];
        int i = 0;
        for (BufferJourney journey : complete) {
            toTake.add(journey.nanos(Hop.TAKE) - journey.nanos(Hop.COMMIT));
            if (journey.has(Hop.CREDIT)) {
                toCredit.add(journey.nanos(Hop.CREDIT) - journey.nanos(Hop.COMMIT));
            }
            handOffs[i++] = journey.handOffs();
        }
        row(out, "commit to consumer", "COMMIT", toTake, -1);
        row(out, "commit to credit back", "COMMIT", toCredit, -1);
        Arrays.sort(handOffs);
        double mean = Arrays.stream(handOffs).average().orElse(0);
        out.printf(Locale.ROOT, "%nThread hand-offs per buffer (network crossings included): mean %.2f, p50 %d,"
                + " max %d%n", mean, percentile(handOffs, 0.5), percentile(handOffs, 1.0));
    }

    /** Event-loop wake-ups and credit messages per data buffer written, over the whole trace. */
    public static void printMessageCounts(List<Event> events, PrintStream out) {
        long writes = 0;
        long notifies = 0;
        long credits = 0;
        long creditNotifies = 0;
        long creditSum = 0;
        for (Event event : events) {
            switch (event.hop()) {
                case WRITE -> writes++;
                case NOTIFY -> notifies++;
                case CREDIT -> {
                    credits++;
                    creditSum += event.seq();
                }
                case CREDIT_NOTIFY -> creditNotifies++;
                default -> {
                }
            }
        }
        if (writes == 0) {
            return;
        }
        out.printf(Locale.ROOT, "Per data buffer written: %.2f server notifications, %.2f credit notifications to the"
                + " client's event loop, %.2f AddCredit messages (%.1f credits each)%n", (double) notifies / writes,
                (double) creditNotifies / writes, (double) credits / writes, credits == 0 ? 0.0
                        : (double) creditSum / credits);
    }

    private static void row(PrintStream out, String hop, String from, List<Long> latencies, int handOffs) {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        out.printf(Locale.ROOT, "| %s | %s | %d | %s | %s | %s |%n", hop, from, sorted.length,
                micros(percentile(sorted, 0.5), sorted.length), micros(percentile(sorted, 0.99), sorted.length),
                handOffs < 0 ? "" : sorted.length == 0 ? "-"
                        : String.format(Locale.ROOT, "%.0f%%", 100.0 * handOffs / sorted.length));
    }

    private static String micros(long nanos, int count) {
        return count == 0 ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** The table of what this JVM's trace holds now (for a benchmark's tear-down). */
    public static void printCurrent(String title, PrintStream out) {
        print(TraceLinker.link(BufferTrace.snapshot()), title, out);
    }
}
