package io.sluice.tests.chaos;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak reports for a process without JUnit (the {@code sluice-bench chaos} command; the tests have the
 * NettyLeakCheck extension): {@link #install()} turns the detector to paranoid and records what every detector
 * reports; {@link #collect()} forces a garbage collection, makes Netty report what it collected unreleased, and
 * returns the reports. Install it before anything allocates a Netty buffer, so the buffers' detector is one of its
 * own. Any thread.
 */
public final class LeakReports {

    @GuardedBy("REPORTS")
    private static final List<String> REPORTS = new ArrayList<>();
    private static final long GC_WAIT_MILLIS = 100;
    private static final int GC_ATTEMPTS = 50;

    private LeakReports() {
    }

    /** Paranoid leak detection from now on, every report recorded. Call once, first thing. */
    public static void install() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
                ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval);
                detector.setLeakListener((type, records) -> {
                    synchronized (REPORTS) {
                        REPORTS.add("LEAK: " + type + records);
                    }
                });
                return detector;
            }

            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return newResourceLeakDetector(resource, samplingInterval);
            }
        });
    }

    /** @return the leaks reported since the last call, after a garbage collection; empty when none */
    public static List<String> collect() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        PhantomReference<Object> sentinel = new PhantomReference<>(new Object(), queue);
        try {
            for (int attempt = 0; attempt < GC_ATTEMPTS && queue.poll() != sentinel; attempt++) {
                System.gc();
                if (queue.remove(GC_WAIT_MILLIS) == sentinel) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ByteBuf probe = UnpooledByteBufAllocator.DEFAULT.directBuffer(1); // Netty reports when it tracks anew
        probe.release();
        synchronized (REPORTS) {
            List<String> found = new ArrayList<>(REPORTS);
            REPORTS.clear();
            return found;
        }
    }
}
