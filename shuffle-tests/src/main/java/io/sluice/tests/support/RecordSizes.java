package io.sluice.tests.support;

import io.sluice.api.ByteSizes;

import java.util.ArrayList;
import java.util.List;

/**
 * The sizes of generated records: one fixed size, a uniform range, or sizes with weights.
 * Written as text ({@link #parse}): {@code 100}, {@code 32k}, {@code 64..4k} (uniform,
 * inclusive), {@code 64:40,1k:30,32k:2} (size:weight, drawn in proportion to the weights),
 * or {@code mixed} ({@link #MIXED}). A size counts every byte of the record the library carries.
 * Immutable; any thread.
 */
public final class RecordSizes {

    /**
     * The default mix: mostly small records, some that fill a 32 KiB buffer, a few that span
     * several, so a run exercises framing, spanning and bulk copies at once (mean about 8.8 KiB).
     */
    public static final String MIXED = "64:40,512:30,4k:20,32k:8,256k:2";

    /** Upper bound of one record, so a record and its reusable buffer fit in a Java array. */
    private static final int MAX_RECORD = Integer.MAX_VALUE - 16;

    private final String text;
    private final int[] sizes;             // weighted: the sizes; uniform: {min, max}
    private final long[] cumulativeWeight; // weighted: running sum of weights; null when uniform

    private RecordSizes(String text, int[] sizes, long[] cumulativeWeight) {
        this.text = text;
        this.sizes = sizes;
        this.cumulativeWeight = cumulativeWeight;
    }

    /**
     * @param size every record's size in bytes
     * @return the distribution with that one size
     */
    public static RecordSizes fixed(int size) {
        checkSize(size, String.valueOf(size));
        return new RecordSizes(String.valueOf(size), new int[] {size}, new long[] {1});
    }

    /**
     * @param min the smallest size
     * @param max the largest size, at least {@code min}
     * @return sizes drawn uniformly from {@code min..max}
     */
    public static RecordSizes uniform(int min, int max) {
        String text = min + ".." + max;
        checkSize(min, text);
        checkSize(max, text);
        if (max < min) {
            throw new IllegalArgumentException("'" + text + "': the range ends below its start");
        }
        return new RecordSizes(text, new int[] {min, max}, null);
    }

    /**
     * @param spec {@code SIZE}, {@code MIN..MAX}, {@code SIZE:WEIGHT,...} or {@code mixed}
     * @return the distribution
     * @throws IllegalArgumentException naming the part that does not parse and the forms accepted
     */
    public static RecordSizes parse(String spec) {
        String s = spec.trim();
        if (s.equalsIgnoreCase("mixed")) {
            s = MIXED;
        }
        try {
            int range = s.indexOf("..");
            if (range >= 0) {
                return uniform(size(s.substring(0, range), spec), size(s.substring(range + 2), spec));
            }
            if (s.indexOf(':') < 0 && s.indexOf(',') < 0) {
                return fixed(size(s, spec));
            }
            return weighted(s, spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + "; record sizes are SIZE (e.g. 100), MIN..MAX (e.g. 64..4k), "
                    + "SIZE:WEIGHT,... (e.g. 100:9,32k:1) or mixed (" + MIXED + ")", e);
        }
    }

    private static RecordSizes weighted(String s, String spec) {
        List<int[]> parts = new ArrayList<>();
        for (String part : s.split(",")) {
            int colon = part.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + part.trim() + "' in '" + spec + "' has no weight");
            }
            int weight;
            String weightText = part.substring(colon + 1).trim();
            try {
                weight = Integer.parseInt(weightText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("weight '" + weightText + "' in '" + spec + "' is not a whole number", e);
            }
            if (weight <= 0) {
                throw new IllegalArgumentException("weight " + weight + " in '" + spec + "' must be at least 1");
            }
            parts.add(new int[] {size(part.substring(0, colon), spec), weight});
        }
        int[] sizes = new int[parts.size()];
        long[] cumulative = new long[parts.size()];
        long sum = 0;
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = parts.get(i)[0];
            sum += parts.get(i)[1];
            cumulative[i] = sum;
        }
        return new RecordSizes(spec.trim(), sizes, cumulative);
    }

    private static int size(String part, String spec) {
        long bytes = ByteSizes.parse(part);
        checkSize(bytes, spec);
        return (int) bytes;
    }

    private static void checkSize(long size, String spec) {
        if (size < 0 || size > MAX_RECORD) {
            throw new IllegalArgumentException("size " + size + " in '" + spec + "' is outside 0.." + MAX_RECORD);
        }
    }

    /**
     * Picks a size; no allocation (called once per generated record).
     *
     * @param randomBits 64 uniformly random bits
     * @return the size they select
     */
    public int sizeFor(long randomBits) {
        long positive = randomBits >>> 1;
        if (cumulativeWeight == null) {
            return sizes[0] + (int) (positive % ((long) sizes[1] - sizes[0] + 1));
        }
        long pick = positive % cumulativeWeight[cumulativeWeight.length - 1];
        int i = 0;
        while (cumulativeWeight[i] <= pick) { // a handful of sizes: a linear scan beats a binary search
            i++;
        }
        return sizes[i];
    }

    /** @return the smallest size this can pick */
    public int min() {
        int min = Integer.MAX_VALUE;
        for (int size : sizes) {
            min = Math.min(min, size);
        }
        return min;
    }

    /** @return the largest size this can pick */
    public int max() {
        int max = 0;
        for (int size : sizes) {
            max = Math.max(max, size);
        }
        return max;
    }

    /** @return the expected size of one record */
    public double mean() {
        if (cumulativeWeight == null) {
            return (sizes[0] + (double) sizes[1]) / 2;
        }
        double sum = 0;
        long previous = 0;
        for (int i = 0; i < sizes.length; i++) {
            sum += (double) sizes[i] * (cumulativeWeight[i] - previous);
            previous = cumulativeWeight[i];
        }
        return sum / previous;
    }

    /** @return the text this was parsed from (or built as), e.g. {@code 64..4k} */
    @Override
    public String toString() {
        return text;
    }
}
