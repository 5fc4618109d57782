package io.sluice.bench.report;

/**
 * The most memory a run used. Immutable value.
 *
 * @param networkPeakBytes network buffers in use at the sampled peak, over every environment, in bytes
 * @param networkTotalBytes network memory of every environment together
 * @param buffersAtPeak network buffers in use at that peak
 * @param totalBuffers network buffers of every environment together
 * @param directPeakBytes most java.nio direct buffer memory of the process seen, in bytes
 * @param processPeakRssBytes the process's peak resident set size, or -1 where the OS does not tell
 */
public record MemoryPeak(long networkPeakBytes, long networkTotalBytes, int buffersAtPeak, int totalBuffers,
                         long directPeakBytes, long processPeakRssBytes) {

    /** No environment, nothing measured. */
    public static final MemoryPeak NONE = new MemoryPeak(0, 0, 0, 0, 0, -1);

    /**
     * The peaks of two phases of one run over the same environments: each figure the larger of the two (the
     * network peak with its buffer count). The write phase of a blocking run has its network peak, the read phase
     * its peak RSS (which never falls).
     */
    public static MemoryPeak larger(MemoryPeak a, MemoryPeak b) {
        MemoryPeak network = a.networkPeakBytes() >= b.networkPeakBytes() ? a : b;
        return new MemoryPeak(network.networkPeakBytes(), Math.max(a.networkTotalBytes(), b.networkTotalBytes()),
                network.buffersAtPeak(), Math.max(a.totalBuffers(), b.totalBuffers()),
                Math.max(a.directPeakBytes(), b.directPeakBytes()),
                Math.max(a.processPeakRssBytes(), b.processPeakRssBytes()));
    }
}
