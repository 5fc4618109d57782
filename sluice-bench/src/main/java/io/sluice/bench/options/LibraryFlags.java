package io.sluice.bench.options;

import io.sluice.api.ByteSizes;
import io.sluice.api.ConfigOption;
import io.sluice.api.Durations;
import io.sluice.api.ShuffleOptions;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options of sluice-bench that set a library option, and the rewriting of library messages
 * into command-line terms ({@code shuffle.memory.total} becomes {@code --memory}). Stateless; any thread.
 */
public final class LibraryFlags {

    /** Each flag and the library option it sets. */
    public static final Map<String, ConfigOption<?>> OPTIONS = Map.of(
            Flags.TRANSPORT, ShuffleOptions.NETTY_TRANSPORT,
            Flags.SSL, ShuffleOptions.SSL_PROVIDER,
            Flags.FLUSH_INTERVAL, ShuffleOptions.OUTPUT_FLUSH_INTERVAL,
            Flags.MEMORY, ShuffleOptions.MEMORY_TOTAL,
            Flags.SEGMENT_SIZE, ShuffleOptions.MEMORY_SEGMENT_SIZE,
            Flags.BUFFERS_PER_CHANNEL, ShuffleOptions.BUFFERS_PER_CHANNEL,
            Flags.FLOATING_BUFFERS, ShuffleOptions.FLOATING_BUFFERS_PER_GATE,
            Flags.COMPRESSION, ShuffleOptions.COMPRESSION_CODEC,
            Flags.PORT, ShuffleOptions.NETTY_PORT);

    private LibraryFlags() {
    }

    /**
     * @param key a library key
     * @return the flag that sets it, or null when only {@code --conf} does
     */
    public static String flagOf(String key) {
        for (Map.Entry<String, ConfigOption<?>> entry : OPTIONS.entrySet()) {
            if (entry.getValue().key().equals(key)) {
                return entry.getKey();
            }
        }
        return null;
    }

    /**
     * Rewrites a library configuration problem in command-line terms: each library key this
     * tool has an option for becomes that option.
     *
     * @param problem e.g. "shuffle.memory.total: 1k is less than one segment (shuffle.memory.segment-size = 32k)"
     * @return e.g. "--memory: 1k is less than one segment (--segment-size = 32k)"
     */
    public static String inCommandLineTerms(String problem) {
        return replaceKeys(problem, false);
    }

    /**
     * Adds the command-line option after each library key a runtime message names, so the
     * reader of "raise shuffle.memory.total" knows to pass {@code --memory}.
     *
     * @param message a library message
     * @return the message with " (--option)" after each key this tool has an option for
     */
    public static String withOptionHints(String message) {
        return message == null ? null : replaceKeys(message, true);
    }

    private static String replaceKeys(String text, boolean keepKey) {
        String result = text;
        for (Map.Entry<String, ConfigOption<?>> entry : OPTIONS.entrySet()) {
            String key = entry.getValue().key();
            // A key ends where the next character cannot continue it, so "x.port" never matches inside "x.port-range".
            Pattern pattern = Pattern.compile(Pattern.quote(key) + "(?![\\w.-])");
            String replacement = keepKey ? key + " (" + entry.getKey() + ")" : entry.getKey();
            result = pattern.matcher(result).replaceAll(Matcher.quoteReplacement(replacement));
        }
        return result;
    }

    /**
     * @param option a library option
     * @return its default as the command line writes it, e.g. {@code 64m}
     */
    public static String defaultText(ConfigOption<?> option) {
        Object value = option.defaultValue();
        if (value instanceof Duration duration) {
            return Durations.format(duration);
        }
        if (value instanceof Long bytes) {
            return ByteSizes.format(bytes);
        }
        return String.valueOf(value);
    }
}
