package io.sluice.tests.blocking;

import io.sluice.api.ShuffleConfig;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.io.IOException;
import java.util.stream.Stream;

/**
 * How a blocking partition's consumer reaches it in these tests: in the producer's own environment, or from a second
 * environment over nio TCP or the local transport. Immutable; any thread.
 */
enum BlockingLink {

    IN_PROCESS(null),
    NIO(Transport.NIO),
    LOCAL(Transport.LOCAL);

    private final Transport transport;

    BlockingLink(Transport transport) {
        this.transport = transport;
    }

    ShuffleFixture start(ShuffleConfig config) throws IOException {
        return transport == null ? ShuffleFixture.start(Layout.ONE_ENVIRONMENT, config)
                : ShuffleFixture.start(transport, config);
    }

    /** The source of parameterized tests: every link. */
    static Stream<BlockingLink> all() {
        return Stream.of(values());
    }

    /** The links that cross a connection. */
    static Stream<BlockingLink> remote() {
        return Stream.of(NIO, LOCAL);
    }
}
