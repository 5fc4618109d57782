package io.sluice.bench.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of this JVM's threads, grouped by name (digits dropped: {@code jmh-producer-3} counts as
 * {@code jmh-producer-}), between a mark and a report: where a benchmark's CPU goes, per delivered record. On a
 * loaded machine the CPU per record moves far less than the throughput, which depends on what the other processes
 * leave over. Threads that started or ended in between count from 0 or until their end is missed (a short setup or
 * teardown thread).
 *
 * <p>Threads: {@link #mark} and {@link #report} by one thread (the benchmark's setup, its first invocation and its
 * teardown, which JMH orders).
 */
final class ThreadCpu {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private Map<Long, Long> marked; // thread id -> CPU ns at the mark
    private long markedRecords;

    /** Takes the mark at {@code records} delivered so far; only the first call counts. */
    void mark(long records) {
        if (marked != null || !threads.isThreadCpuTimeSupported()) {
            return;
        }
        marked = cpuById();
        markedRecords = records;
    }

    /**
     * @param records delivered so far
     * @return one line: CPU ns per record in total and per thread group since the mark, or empty without a mark
     */
    String report(long records) {
        long delivered = records - markedRecords;
        if (marked == null || delivered <= 0) {
            return "";
        }
        Map<String, Long> byGroup = new TreeMap<>();
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long now = threads.getThreadCpuTime(info.getThreadId());
            if (now < 0) {
                continue;
            }
            long used = now - marked.getOrDefault(info.getThreadId(), 0L);
            byGroup.merge(info.getThreadName().replaceAll("[0-9]+", ""), used, Long::sum);
            total += used;
        }
        StringBuilder line = new StringBuilder(String.format("# CPU ns per record over %d records: %.1f", delivered,
                (double) total / delivered));
        for (Map.Entry<String, Long> group : byGroup.entrySet()) {
            double perRecord = (double) group.getValue() / delivered;
            if (perRecord >= 0.5) {
                line.append(String.format("; %s %.1f", group.getKey(), perRecord));
            }
        }
        return line.toString();
    }

    private Map<Long, Long> cpuById() {
        Map<Long, Long> cpu = new TreeMap<>();
        for (long id : threads.getAllThreadIds()) {
            long nanos = threads.getThreadCpuTime(id);
            if (nanos >= 0) {
                cpu.put(id, nanos);
            }
        }
        return cpu;
    }
}
