package io.sluice.flinkpeer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads by role, so that a figure can say where its CPU goes per unit (record or buffer),
 * in the same roles as Sluice's side of the comparison (bench/jmh-to-lines.py): {@code producer} (the threads that
 * write records), {@code consumer}, {@code server} (the sending side's event loop: Flink's Netty server thread),
 * {@code client} (the receiving side's: Flink's Netty client thread) and {@code other} (output flushers, the JIT
 * compiler, GC, everything else). Snapshots are taken by a figure's main thread; a thread that starts between two
 * snapshots counts from 0, one that ends is missed (both are rare inside a measurement window).
 */
final class ThreadRoleCpu {

    /** The roles, in the order a figure line lists them. */
    static final String[] ROLES = {"producer", "consumer", "server", "client", "other"};

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> nanosById;
    private final Map<Long, String> roleById;

    private ThreadRoleCpu(Map<Long, Long> nanosById, Map<Long, String> roleById) {
        this.nanosById = nanosById;
        this.roleById = roleById;
    }

    /** CPU time of every live thread now; empty where the JVM cannot measure thread CPU time. */
    static ThreadRoleCpu snapshot() {
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, String> roles = new HashMap<>();
        if (THREADS.isThreadCpuTimeSupported()) {
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                long id = thread.getId();
                long cpu = THREADS.getThreadCpuTime(id);
                if (cpu >= 0) {
                    nanos.put(id, cpu);
                    roles.put(id, roleOf(thread.getName()));
                }
            }
        }
        return new ThreadRoleCpu(nanos, roles);
    }

    /** The role of a thread, from its name: this peer's workers and Flink's Netty threads. */
    static String roleOf(String name) {
        if (name.contains("Netty Server")) {
            return "server";
        }
        if (name.contains("Netty Client")) {
            return "client";
        }
        if (name.startsWith("writer") || name.startsWith("emitter") || name.startsWith("producer")) {
            return "producer";
        }
        if (name.startsWith("consumer")) {
            return "consumer";
        }
        return "other";
    }

    /**
     * CPU nanoseconds per unit by role, from {@code earlier} to this snapshot, every role of {@link #ROLES} present;
     * empty when nothing was measured or {@code units} is not positive.
     */
    Map<String, Double> nanosPerUnitSince(ThreadRoleCpu earlier, long units) {
        Map<String, Double> perUnit = new LinkedHashMap<>();
        if (units <= 0 || nanosById.isEmpty()) {
            return perUnit;
        }
        for (String role : ROLES) {
            perUnit.put(role, 0.0);
        }
        for (Map.Entry<Long, Long> thread : nanosById.entrySet()) {
            long used = thread.getValue() - earlier.nanosById.getOrDefault(thread.getKey(), 0L);
            perUnit.merge(roleById.get(thread.getKey()), (double) used / units, Double::sum);
        }
        return perUnit;
    }
}
