package io.sluice.flink.itcases;

import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one run of Flink's ITCases asks for, from the forked JVM's system properties (set by the profile's surefire
 * executions): which shuffle ({@value #SHUFFLE_PROPERTY}: {@code flink}, the default, or {@code sluice}) and which
 * extra Flink options Sluice's factory sees ({@value #OPTIONS_PROPERTY}: {@code key=value} pairs separated by
 * commas, e.g. {@code sluice.shuffle.input.local-channels=false}). Immutable; any thread.
 */
public final class Injection {

    /** The system property naming the shuffle: {@code flink} or {@code sluice}. */
    public static final String SHUFFLE_PROPERTY = "sluice.itcases.shuffle";
    /** The system property with the extra Flink options for Sluice's factory. */
    public static final String OPTIONS_PROPERTY = "sluice.itcases.options";

    private final boolean sluice;
    private final Map<String, String> options;

    private Injection(boolean sluice, Map<String, String> options) {
        this.sluice = sluice;
        this.options = Map.copyOf(options);
    }

    /** @return the injection this JVM's system properties ask for */
    public static Injection fromSystemProperties() {
        return parse(System.getProperty(SHUFFLE_PROPERTY, "flink"), System.getProperty(OPTIONS_PROPERTY, ""));
    }

    /**
     * Reads the two properties' values.
     *
     * @param shuffle {@code flink} or {@code sluice}
     * @param options {@code key=value} pairs separated by commas; blank for none
     * @throws IllegalArgumentException for another shuffle name or a pair without {@code =}
     */
    static Injection parse(String shuffle, String options) {
        boolean sluice;
        if ("sluice".equals(shuffle)) {
            sluice = true;
        } else if ("flink".equals(shuffle)) {
            sluice = false;
        } else {
            throw new IllegalArgumentException(SHUFFLE_PROPERTY + " must be flink or sluice, not '" + shuffle + "'");
        }
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String pair : options.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int equals = pair.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException(OPTIONS_PROPERTY + " takes key=value pairs separated by commas; '"
                        + pair.trim() + "' has no key=value");
            }
            parsed.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
        }
        return new Injection(sluice, parsed);
    }

    /** @return whether Sluice replaces Flink's default shuffle */
    public boolean sluice() {
        return sluice;
    }

    /** @return the extra Flink options Sluice's factory sees, in the order given */
    public Map<String, String> options() {
        return options;
    }

    /**
     * Flink's unaligned-checkpoint ITCases run Flink's Netty shuffle through this test factory, which only makes
     * all TaskManagers of the test share one buffer pool; with Sluice asked for, it is replaced like the default.
     */
    static final String SHARED_POOL_NETTY_SHUFFLE =
            "org.apache.flink.test.checkpointing.SharedPoolNettyShuffleServiceFactory";

    /**
     * The shuffle service factory to instantiate in place of the configured one.
     *
     * @param configured the configuration's {@code shuffle-service-factory.class}
     * @return {@link InjectedShuffleServiceFactory} when Sluice is asked for and the configured factory is Flink's
     *     Netty shuffle (the default, or {@link #SHARED_POOL_NETTY_SHUFFLE}); otherwise the configured class (a test
     *     that chose another shuffle keeps it)
     */
    public String factoryClass(String configured) {
        if (sluice && (ShuffleServiceOptions.NETTY_SHUFFLE_SERVICE_FACTORY_CLASS.equals(configured)
                || SHARED_POOL_NETTY_SHUFFLE.equals(configured))) {
            return InjectedShuffleServiceFactory.class.getName();
        }
        return configured;
    }
}
