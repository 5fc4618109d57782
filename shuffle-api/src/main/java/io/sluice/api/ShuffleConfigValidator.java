package io.sluice.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds every problem of a {@link ShuffleConfig}: unknown keys under {@code shuffle.} (with the
 * closest known key), values that do not parse, values out of range, and options that contradict
 * each other. Keys outside {@code shuffle.} belong to the engine and are ignored.
 * Stateless; any thread.
 */
public final class ShuffleConfigValidator {

    /** Prefix of the keys this library owns. */
    static final String PREFIX = "shuffle.";

    private ShuffleConfigValidator() {
    }

    /**
     * @param config the config to check
     * @return one line per problem, each starting with the key to change; empty when the config is valid
     */
    public static List<String> problems(ShuffleConfig config) {
        List<String> problems = new ArrayList<>();
        Map<String, ConfigOption<?>> known = new HashMap<>();
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            known.put(option.key(), option);
        }
        for (String key : config.toMap().keySet()) {
            if (key.startsWith(PREFIX) && !known.containsKey(key)) {
                problems.add(key + ": unknown option; did you mean " + closestKey(key) + "?");
            }
        }
        boolean allValid = true;
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            allValid &= checkOne(config, option, problems);
        }
        if (allValid) {
            // Only now: a combination of values that are wrong on their own would repeat their problem.
            checkCombinations(config, problems);
        }
        return problems;
    }

    /**
     * @param config the config to check
     * @throws IllegalArgumentException listing every problem, one per line, each naming the option to change
     */
    public static void validate(ShuffleConfig config) {
        List<String> problems = problems(config);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("Invalid shuffle configuration (" + problems.size()
                    + (problems.size() == 1 ? " problem" : " problems") + "):\n"
                    + String.join("\n", problems));
        }
    }

    /** @return false when the option's value does not parse or is out of range (its problem is added) */
    private static <T> boolean checkOne(ShuffleConfig config, ConfigOption<T> option, List<String> problems) {
        T value;
        try {
            value = config.get(option);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return false;
        }
        Optional<String> problem = option.problemWith(value, config.toMap().get(option.key()));
        problem.ifPresent(problems::add);
        return problem.isEmpty();
    }

    private static void checkCombinations(ShuffleConfig config, List<String> problems) {
        long total = config.get(ShuffleOptions.MEMORY_TOTAL);
        long segment = config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE);
        String totalKey = ShuffleOptions.MEMORY_TOTAL.key();
        String segmentKey = ShuffleOptions.MEMORY_SEGMENT_SIZE.key();
        // The ranges keep total / segment far below 2^31; the environment checks the segments it really gets.
        if (total < segment) {
            problems.add(totalKey + ": " + ByteSizes.format(total) + " is less than one segment ("
                    + segmentKey + " = " + ByteSizes.format(segment) + "); raise " + totalKey
                    + " or lower " + segmentKey);
        }
        long readMemory = config.get(ShuffleOptions.BLOCKING_READ_MEMORY);
        if (readMemory < segment) {
            String readKey = ShuffleOptions.BLOCKING_READ_MEMORY.key();
            problems.add(readKey + ": " + ByteSizes.format(readMemory) + " is less than one segment (" + segmentKey
                    + " = " + ByteSizes.format(segment) + "); raise " + readKey);
        }
        Duration initial = config.get(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF);
        Duration max = config.get(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF);
        if (initial.compareTo(max) > 0) {
            String initialKey = ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF.key();
            String maxKey = ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF.key();
            problems.add(initialKey + ": " + Durations.format(initial) + " is greater than " + maxKey
                    + " = " + Durations.format(max) + "; lower " + initialKey + " or raise " + maxKey);
        }
        Duration interval = config.get(ShuffleOptions.NETTY_HEARTBEAT_INTERVAL);
        Duration timeout = config.get(ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT);
        if (interval.compareTo(timeout) >= 0) {
            String intervalKey = ShuffleOptions.NETTY_HEARTBEAT_INTERVAL.key();
            String timeoutKey = ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT.key();
            problems.add(timeoutKey + ": " + Durations.format(timeout) + " is not longer than " + intervalKey
                    + " = " + Durations.format(interval) + ": a live but idle connection would be closed; raise "
                    + timeoutKey + " (a few intervals) or lower " + intervalKey);
        }
    }

    private static String closestKey(String unknown) {
        List<String> keys = new ArrayList<>();
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            keys.add(option.key());
        }
        return closestName(unknown, keys);
    }

    /**
     * The name among {@code known} that takes the fewest single-character edits to become {@code unknown}, the first
     * of equals; null when {@code known} is empty. How this validator names the key closest to a misspelled one, for
     * tools that make the same suggestion for their own names.
     *
     * @param unknown the misspelled name
     * @param known the names it may have meant
     * @return the closest of {@code known}, or null when there is none
     */
    public static String closestName(String unknown, Iterable<String> known) {
        String closest = null;
        int closestDistance = Integer.MAX_VALUE;
        for (String name : known) {
            int distance = EditDistance.between(unknown, name);
            if (distance < closestDistance) {
                closest = name;
                closestDistance = distance;
            }
        }
        return closest;
    }
}
