package io.sluice.tests.blocking;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.io.IOException;
import java.util.stream.Stream;

/**
 * How a blocking partition's consumer reaches it in these tests: in the producer's own environment, or from a second
 * environment over nio TCP (read through the read memory, which {@code shuffle.blocking.zero-copy=auto} chooses for a
 * consumer on this host, or sent from the file with sendfile, {@code always}) or the local transport. Immutable; any
 * thread.
 */
enum BlockingLink {

    IN_PROCESS(null, "auto"),
    NIO(Transport.NIO, "auto"),
    NIO_SENDFILE(Transport.NIO, "always"),
    LOCAL(Transport.LOCAL, "auto");

    private final Transport transport;
    private final String zeroCopy;

    BlockingLink(Transport transport, String zeroCopy) {
        this.transport = transport;
        this.zeroCopy = zeroCopy;
    }

    ShuffleFixture start(ShuffleConfig config) throws IOException {
        ShuffleConfig withMode = config.with(ShuffleOptions.BLOCKING_ZERO_COPY, zeroCopy);
        return transport == null ? ShuffleFixture.start(Layout.ONE_ENVIRONMENT, withMode)
                : ShuffleFixture.start(transport, withMode);
    }

    /** The source of parameterized tests: every link. */
    static Stream<BlockingLink> all() {
        return Stream.of(values());
    }

    /** The links that cross a connection. */
    static Stream<BlockingLink> remote() {
        return Stream.of(NIO, NIO_SENDFILE, LOCAL);
    }
}
