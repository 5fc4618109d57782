package io.sluice.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak reports, recorded instead of only logged: {@link #install()} puts a listener on the detector of
 * {@code ByteBuf}s and, through a {@link ResourceLeakDetectorFactory}, on every detector Netty creates later;
 * {@link #collectLeaks()} makes Netty report what was garbage collected unreleased and returns the reports. Used by
 * the JUnit extension {@link NettyLeakCheck} and by processes without JUnit (a test's child process, the bench's
 * {@code chaos} command). It needs no JUnit, so such a process needs none on its class path.
 *
 * <p>How: Netty reports a leak when it allocates a tracked resource after the leaked one was collected, and then
 * tells the detector's {@link ResourceLeakDetector.LeakListener}. {@link #collectLeaks()} forces a garbage
 * collection, waits until the collector has processed its references, and allocates one tracked buffer, which makes
 * Netty report what was collected (Netty's "LEAK:" records: where the buffer was created and last touched). Which
 * buffers are tracked is Netty's level: the tests run with {@code -Dio.netty.leakDetection.level=paranoid}, a process
 * without that flag calls {@link #installForCommandLine()}.
 *
 * <p>Any thread; the leaks found are kept in one synchronized list.
 */
public final class NettyLeaks {

    /** How long to wait for the collector to process the references of one forced collection; a hang guard. */
    private static final Duration GC_TIMEOUT = Duration.ofSeconds(10);
    /** How long one wait for the sentinel lasts before the collection is forced again. */
    private static final long GC_POLL_MILLIS = 100;
    /**
     * Collections forced per check: a leaked buffer whose tracker was only weakly reachable from another object
     * that itself needed a collection to die takes a second one.
     */
    private static final int GC_ROUNDS = 2;

    @GuardedBy("LEAKS")
    private static final List<String> LEAKS = new ArrayList<>();
    private static final ResourceLeakDetector.LeakListener RECORDER = NettyLeaks::record;
    @GuardedBy("NettyLeaks.class")
    private static boolean installed;  // .class

    private NettyLeaks() {
    }

    /**
     * Starts recording Netty's leak reports in this JVM; for the main method of a child process, which has no JUnit
     * around it. Idempotent.
     */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        // Detectors Netty creates from now on (HashedWheelTimer's, any other resource type's).
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ListeningFactory());
        // The ByteBuf detector is created once, when AbstractByteBuf is initialized, maybe before this ran (another
        // test class may have used Netty in this JVM): reach it through its static field. Reading the field
        // initializes the class if nobody did, through the factory above; either way the listener is set.
        byteBufLeakDetector().setLeakListener(RECORDER);
        installed = true;
    }

    /**
     * Makes Netty report every tracked resource that is unreachable now and was not released, and returns the
     * reports since the last call.
     *
     * @return Netty's leak records, one string per leak; empty when nothing leaked
     */
    public static List<String> collectLeaks() {
        for (int round = 0; round < GC_ROUNDS; round++) {
            awaitGarbageCollection();
            // Netty checks for collected, unreleased resources when it tracks a new one; it tracks direct buffers
            // (since Netty 4.2 unpooled heap buffers are left to the garbage collector, untracked).
            ByteBuf probe = UnpooledByteBufAllocator.DEFAULT.directBuffer(1);
            probe.release();
        }
        synchronized (LEAKS) {
            List<String> found = new ArrayList<>(LEAKS);
            LEAKS.clear();
            return found;
        }
    }

    /**
     * {@link #install()} for a command-line tool (the bench's {@code chaos} command): every buffer tracked from now on
     * (Netty's paranoid level, which its command line does not set). Call it before anything allocates a Netty buffer.
     */
    public static void installForCommandLine() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        install();
    }

    private static void record(String resourceType, String records) {
        synchronized (LEAKS) {
            LEAKS.add("LEAK: " + resourceType + (records.isEmpty() ? " (no access records)" : records));
        }
    }

    /** Forces a collection and waits until a phantom-reachable sentinel was enqueued: references are processed. */
    private static void awaitGarbageCollection() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        PhantomReference<Object> sentinel = new PhantomReference<>(new Object(), queue);
        long deadline = System.nanoTime() + GC_TIMEOUT.toNanos();
        try {
            Reference<?> enqueued = null;
            while (enqueued != sentinel) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the garbage collector did not process references within "
                            + GC_TIMEOUT.toMillis() + " ms; cannot check Netty for leaks");
                }
                System.gc();
                enqueued = queue.remove(GC_POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a garbage collection", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static ResourceLeakDetector<ByteBuf> byteBufLeakDetector() {
        try {
            Field field = AbstractByteBuf.class.getDeclaredField("leakDetector");
            field.setAccessible(true);
            return (ResourceLeakDetector<ByteBuf>) field.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach Netty's ByteBuf leak detector (AbstractByteBuf.leakDetector "
                    + "in this Netty version?): leaks could not fail the build", e);
        }
    }

    /** Creates Netty's usual detectors, each reporting to {@link #RECORDER} as well as to Netty's log. */
    private static final class ListeningFactory extends ResourceLeakDetectorFactory {

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval);
            detector.setLeakListener(RECORDER);
            return detector;
        }

        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                   long maxActive) {
            return newResourceLeakDetector(resource, samplingInterval);
        }
    }
}
