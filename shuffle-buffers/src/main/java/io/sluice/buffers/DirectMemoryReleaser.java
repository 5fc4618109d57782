package io.sluice.buffers;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the native memory of a direct {@link ByteBuffer} back to the operating system at once, instead of
 * whenever the garbage collector finds the buffer unreachable.
 *
 * <p>Uses {@code sun.misc.Unsafe#invokeCleaner} from the {@code jdk.unsupported} module, looked up reflectively so
 * that compiling this module needs no internal API. If the lookup fails (a JVM without that module), releasing
 * falls back to the garbage collector and a warning is logged once. Stateless apart from the cached handle; any
 * thread.
 */
final class DirectMemoryReleaser {

    private static final Logger LOG = LoggerFactory.getLogger(DirectMemoryReleaser.class);

    /** {@code unsafe.invokeCleaner(ByteBuffer)} bound to the Unsafe instance, or null when unavailable. */
    private static final MethodHandle INVOKE_CLEANER = lookUpInvokeCleaner();

    private DirectMemoryReleaser() {
    }

    /**
     * Releases the native memory of {@code buffer}, which must be a direct buffer returned by
     * {@link ByteBuffer#allocateDirect} (not a slice or duplicate). The caller guarantees that no view of the
     * buffer is used afterwards: the memory is gone.
     */
    static void release(ByteBuffer buffer) {
        if (INVOKE_CLEANER == null) {
            return; // the GC frees it once the buffer is unreachable
        }
        try {
            INVOKE_CLEANER.invokeExact(buffer);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            // invokeCleaner declares no checked exception; anything else is a JVM contract break
            throw new IllegalStateException("could not release direct memory of " + buffer.capacity() + " bytes", t);
        }
    }

    private static MethodHandle lookUpInvokeCleaner() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            MethodHandle handle = MethodHandles.lookup().findVirtual(
                    unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class));
            return handle.bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("sun.misc.Unsafe#invokeCleaner is not available; freed memory segments release their direct "
                    + "memory only when garbage collected", e);
            return null;
        }
    }
}
