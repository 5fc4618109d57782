package io.sluice.tests.support;

import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;

import java.net.InetAddress;

/**
 * Where a test's producers and consumers run. Every integration test takes a layout as its parameter (see
 * {@link EveryLayout}), so a layout added here runs the whole suite over it: the remote path adds layouts with two
 * environments, one per {@code shuffle.netty.transport}, and {@link ShuffleFixture} then puts the producers in the
 * first environment and the consumers in the last.
 * Immutable; any thread.
 */
public enum Layout {

    /** Producers and consumers share one environment without a transport: every channel is in-process. */
    ONE_ENVIRONMENT(1, true, null);

    private final int environments;
    private final boolean localCommunicationOnly;
    private final String transport; // null: leave shuffle.netty.transport as the test configured it

    Layout(int environments, boolean localCommunicationOnly, String transport) {
        this.environments = environments;
        this.localCommunicationOnly = localCommunicationOnly;
        this.transport = transport;
    }

    /** @return how many environments the fixture creates */
    public int environments() {
        return environments;
    }

    /**
     * @param config the test's configuration
     * @return the configuration every environment of this layout gets: the test's, with this layout's transport
     */
    ShuffleConfig configure(ShuffleConfig config) {
        return transport == null ? config : config.with("shuffle.netty.transport", transport);
    }

    /**
     * @param config the configuration from {@link #configure}
     * @param resourceId the environment's identity
     * @return the context of one environment of this layout: its memory from {@code shuffle.memory.total}, bound to
     *     loopback
     */
    ShuffleEnvironmentContext context(ShuffleConfig config, ResourceId resourceId) {
        ShuffleEnvironmentContext usual = ShuffleEnvironmentContext.of(config, resourceId);
        return new ShuffleEnvironmentContext(config, resourceId, usual.networkMemoryBytes(), localCommunicationOnly,
                InetAddress.getLoopbackAddress());
    }
}
