package io.sluice.buffers;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unchecked writes into native memory by address, for the one path where a direct {@link ByteBuffer}'s own checks
 * (index, memory session, byte order) cost more than the write itself: a small record appended by
 * {@link BufferBuilder#appendPrefixedAndCommit}, once per record on every producer, where these writes save about
 * 2 ns of producer CPU per 8-byte record. The JMH benchmark that shows it is {@code RecordThroughputBenchmark.records}
 * with {@code -p recordBytes=8 -p recordBuffer=heap}: the producer thread's nanoseconds per record in its CPU line.
 *
 * <p>Uses {@code sun.misc.Unsafe} from the {@code jdk.unsupported} module, looked up reflectively (as
 * {@link DirectMemoryReleaser} does) so that compiling needs no internal API. The handles are constants, so the JIT
 * compiles each call to one move. When the lookup fails (a JVM without that module), {@link #AVAILABLE} is false,
 * a message is logged once, and callers keep to the checked path, {@link MemorySegment}'s {@code putPrefixed}, which
 * writes the same bytes ({@code RawMemoryTest} compares the two paths record by record).
 *
 * <p>Nothing here checks anything: the caller guarantees that every address lies inside memory it owns and that
 * stays allocated for the call (a {@link BufferBuilder} checks its capacity, and its reference to its buffer keeps
 * the segment from being freed). Stateless; any thread.
 */
final class RawMemory {

    private static final Logger LOG = LoggerFactory.getLogger(RawMemory.class);

    /** True when the writes below may be used. */
    static final boolean AVAILABLE;

    /** {@code unsafe.putInt(long address, int value)}; null when not {@link #AVAILABLE}. */
    private static final MethodHandle PUT_INT;
    /** {@code unsafe.putLong(long address, long value)}. */
    private static final MethodHandle PUT_LONG;
    /** {@code unsafe.putByte(long address, byte value)}. */
    private static final MethodHandle PUT_BYTE;
    /** {@code unsafe.getLong(Object, long)} bound to the offset of {@link Buffer}'s address field: (Object) long. */
    private static final MethodHandle BUFFER_ADDRESS;

    /** Eight bytes of a byte array in the machine's order: copied as they are, the bytes keep their order. */
    private static final VarHandle LONG_NATIVE = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    private static final boolean BIG_ENDIAN_MACHINE = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    static {
        MethodHandle putInt = null;
        MethodHandle putLong = null;
        MethodHandle putByte = null;
        MethodHandle bufferAddress = null;
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            putInt = lookup.findVirtual(unsafeClass, "putInt",
                    MethodType.methodType(void.class, long.class, int.class)).bindTo(unsafe);
            putLong = lookup.findVirtual(unsafeClass, "putLong",
                    MethodType.methodType(void.class, long.class, long.class)).bindTo(unsafe);
            putByte = lookup.findVirtual(unsafeClass, "putByte",
                    MethodType.methodType(void.class, long.class, byte.class)).bindTo(unsafe);
            long addressOffset = (long) lookup.findVirtual(unsafeClass, "objectFieldOffset",
                            MethodType.methodType(long.class, Field.class))
                    .invoke(unsafe, Buffer.class.getDeclaredField("address"));
            bufferAddress = MethodHandles.insertArguments(lookup.findVirtual(unsafeClass, "getLong",
                    MethodType.methodType(long.class, Object.class, long.class)).bindTo(unsafe), 1, addressOffset);
            // One check that the handles do what they should, on memory of our own, before anyone relies on them.
            ByteBuffer probe = ByteBuffer.allocateDirect(Long.BYTES);
            long address = (long) bufferAddress.invokeExact((Object) probe);
            putInt.invokeExact(address, 0x01020304);
            if (probe.order(ByteOrder.nativeOrder()).getInt(0) != 0x01020304) {
                throw new IllegalStateException("a write through sun.misc.Unsafe did not reach the buffer's memory");
            }
        } catch (Throwable t) { // any failure: the checked path is always correct
            LOG.info("sun.misc.Unsafe is not usable ({}); small records are copied through ByteBuffer methods",
                    t.toString());
            putInt = null;
            putLong = null;
            putByte = null;
            bufferAddress = null;
        }
        PUT_INT = putInt;
        PUT_LONG = putLong;
        PUT_BYTE = putByte;
        BUFFER_ADDRESS = bufferAddress;
        AVAILABLE = bufferAddress != null;
    }

    private RawMemory() {
    }

    /**
     * The address of a direct buffer's first byte (of its position 0).
     *
     * @throws IllegalArgumentException for a heap buffer
     * @throws IllegalStateException when not {@link #AVAILABLE}
     */
    static long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("a heap buffer has no address: " + direct);
        }
        if (!AVAILABLE) {
            throw new IllegalStateException("sun.misc.Unsafe is not usable on this JVM");
        }
        try {
            return (long) BUFFER_ADDRESS.invokeExact((Object) direct);
        } catch (Throwable t) {
            throw asUnchecked(t);
        }
    }

    /**
     * Writes {@code prefix} as 4 big-endian bytes at {@code address}, then the {@code numBytes} bytes of
     * {@code source} from {@code sourceOffset}: a framed small record. Up to two 8-byte moves, then single bytes;
     * for longer copies the bulk copy is faster (see {@link MemorySegment}'s SMALL_COPY_BYTES).
     *
     * @throws IndexOutOfBoundsException when the source range is not inside the array, before anything is written
     *     (the target is not checked)
     */
    static void putPrefixedSmall(long address, int prefix, byte[] source, int sourceOffset, int numBytes) {
        Objects.checkFromIndexSize(sourceOffset, numBytes, source.length);
        try {
            PUT_INT.invokeExact(address, BIG_ENDIAN_MACHINE ? prefix : Integer.reverseBytes(prefix));
            long target = address + Integer.BYTES;
            int i = 0;
            if (numBytes >= Long.BYTES) {
                PUT_LONG.invokeExact(target, (long) LONG_NATIVE.get(source, sourceOffset));
                i = Long.BYTES;
                if (numBytes >= 2 * Long.BYTES) {
                    PUT_LONG.invokeExact(target + Long.BYTES,
                            (long) LONG_NATIVE.get(source, sourceOffset + Long.BYTES));
                    i = 2 * Long.BYTES;
                }
            }
            for (; i < numBytes; i++) {
                PUT_BYTE.invokeExact(target + i, source[sourceOffset + i]);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw asUnchecked(t);
        }
    }

    /** The Unsafe methods declare no checked exception; anything else is a broken JVM contract. */
    private static IllegalStateException asUnchecked(Throwable t) {
        return new IllegalStateException("sun.misc.Unsafe call failed", t);
    }
}
