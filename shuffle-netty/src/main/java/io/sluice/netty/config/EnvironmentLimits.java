package io.sluice.netty.config;

import io.sluice.api.ByteSizes;
import io.sluice.api.ConfigOption;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.util.List;

/**
 * The limits of an environment's options that depend on each other and on the environment itself, which
 * {@link io.sluice.api.ShuffleConfigValidator} cannot know: how many segments the environment's network memory makes,
 * whether a partition and a gate of one remote channel fit them, whether the JVM can allocate that memory, and whether
 * every temporary directory is a path. Each check adds one line per problem, starting with the option to change.
 *
 * <p>Stateless; any thread.
 */
final class EnvironmentLimits {

    /** Segments a partition of one subpartition needs: one per subpartition, plus one to switch buffers. */
    static final int MIN_SEGMENTS = 2;

    private EnvironmentLimits() {
    }

    /**
     * Checks the number of segments the network memory makes.
     *
     * @param networkMemory the environment's network memory, in bytes
     * @param segmentSize   bytes of one segment
     * @return false when the segment count is unusable (its problem was added); the later checks need it
     */
    static boolean checkSegments(long networkMemory, long segmentSize, List<String> problems) {
        long segments = networkMemory / segmentSize;
        String totalKey = ShuffleOptions.MEMORY_TOTAL.key();
        String segmentKey = ShuffleOptions.MEMORY_SEGMENT_SIZE.key();
        if (segments < MIN_SEGMENTS) {
            problems.add(totalKey + ": network memory of " + ByteSizes.format(networkMemory) + " makes " + segments
                    + (segments == 1 ? " segment" : " segments") + " of " + ByteSizes.format(segmentSize) + " ("
                    + segmentKey + "), fewer than the " + MIN_SEGMENTS + " a partition of one subpartition needs; "
                    + "raise " + totalKey + " or lower " + segmentKey);
            return false;
        }
        if (segments > Integer.MAX_VALUE) {
            problems.add(totalKey + ": network memory of " + ByteSizes.format(networkMemory) + " makes " + segments
                    + " segments, more than " + Integer.MAX_VALUE + "; lower " + totalKey + " or raise " + segmentKey);
            return false;
        }
        return true;
    }

    /**
     * Checks that the JVM can allocate the network memory now: all of it is allocated off-heap when the environment
     * is created, and what other environments and libraries hold counts against the same limit.
     */
    static void checkDirectMemory(long networkMemory, DirectMemory directMemory, List<String> problems) {
        long limit = directMemory.limit();
        long used = directMemory.used();
        if (networkMemory > limit - used) {
            String totalKey = ShuffleOptions.MEMORY_TOTAL.key();
            problems.add(totalKey + ": network memory of " + ByteSizes.format(networkMemory) + " does not fit the "
                    + "JVM's direct memory: its limit is " + ByteSizes.format(limit) + " (-XX:MaxDirectMemorySize, "
                    + "else the maximum heap size) and " + ByteSizes.format(used) + " of it is in use; lower "
                    + totalKey + " or raise -XX:MaxDirectMemorySize");
        }
    }

    /**
     * Checks that a gate of one remote channel fits the pool: {@code buffers-per-channel + floating-buffers-per-gate}
     * segments, counted in long. The line blames the larger of the two options, or the memory when lowering that one
     * alone cannot help.
     *
     * @param segments the environment's segments (already checked)
     */
    static void checkGateMemory(ShuffleConfig config, long networkMemory, long segmentSize, long segments,
                                List<String> problems) {
        int perChannel = config.get(ShuffleOptions.BUFFERS_PER_CHANNEL);
        int floating = config.get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE);
        long needed = (long) perChannel + floating;
        if (needed <= segments) {
            return;
        }
        String pool = "the environment's " + segments + " segments (" + ShuffleOptions.MEMORY_TOTAL.key() + " = "
                + ByteSizes.format(networkMemory) + " in segments of " + ShuffleOptions.MEMORY_SEGMENT_SIZE.key()
                + " = " + ByteSizes.format(segmentSize) + ")";
        String raise = "raise " + ShuffleOptions.MEMORY_TOTAL.key();
        if (floating > perChannel && segments - perChannel >= 0) {
            problems.add(invalid(config, ShuffleOptions.FLOATING_BUFFERS_PER_GATE, floating)
                    + "one remote channel's exclusive buffers (" + ShuffleOptions.BUFFERS_PER_CHANNEL.key() + " = "
                    + perChannel + ") and the gate's floating buffers must fit " + pool + ": at most "
                    + (segments - perChannel) + "; lower it or " + raise);
        } else if (floating <= perChannel && segments - floating >= 1) {
            problems.add(invalid(config, ShuffleOptions.BUFFERS_PER_CHANNEL, perChannel)
                    + "one remote channel's exclusive buffers and the gate's floating buffers ("
                    + ShuffleOptions.FLOATING_BUFFERS_PER_GATE.key() + " = " + floating + ") must fit " + pool
                    + ": at most " + (segments - floating) + "; lower it or " + raise);
        } else {
            problems.add(ShuffleOptions.MEMORY_TOTAL.key() + ": " + pool + " cannot hold a gate of one remote "
                    + "channel, which needs " + needed + " buffers (" + ShuffleOptions.BUFFERS_PER_CHANNEL.key()
                    + " = " + perChannel + " + " + ShuffleOptions.FLOATING_BUFFERS_PER_GATE.key() + " = " + floating
                    + "); " + raise + " or lower those options");
        }
    }

    /** Checks that every configured temporary directory is a path of this file system. */
    static void checkTmpDirs(List<String> tmpDirs, List<String> problems) {
        for (String dir : tmpDirs) {
            try {
                Paths.get(dir);
            } catch (InvalidPathException e) {
                problems.add(ShuffleOptions.TMP_DIRS.key() + ": '" + dir + "' is not a valid path (" + e.getMessage()
                        + "); list directories separated by commas");
            }
        }
    }

    /** "KEY: invalid value 'TEXT'; " with the value as configured (the default printed when it is not). */
    private static String invalid(ShuffleConfig config, ConfigOption<Integer> option, int value) {
        String text = config.toMap().get(option.key());
        return option.key() + ": invalid value '" + (text != null ? text : Integer.toString(value)) + "'; ";
    }
}
