package io.sluice.buffers;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

import java.lang.management.ManagementFactory;

/**
 * The JVM's limit on direct memory, which {@link MemorySegment#allocateOffHeap} (a {@code ByteBuffer.allocateDirect})
 * counts against: {@code -XX:MaxDirectMemorySize} when it is set, else the maximum heap size (the JVM's default).
 * Read from the VM's own option, so that a check at start names the number an allocation would fail at.
 *
 * <p>Stateless; any thread.
 */
public final class DirectMemoryLimit {

    private DirectMemoryLimit() {
    }

    /** @return the limit in bytes, or -1 when this JVM does not tell it (not a HotSpot-style VM) */
    public static long maxBytes() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (vm == null) {
                return -1;
            }
            VMOption option = vm.getVMOption("MaxDirectMemorySize");
            if (option.getOrigin() == VMOption.Origin.DEFAULT) {
                return Runtime.getRuntime().maxMemory();
            }
            return Long.parseLong(option.getValue());
        } catch (RuntimeException | LinkageError e) {
            // No such bean or option (another VM), or a value that is no number: the limit is unknown.
            return -1;
        }
    }
}
