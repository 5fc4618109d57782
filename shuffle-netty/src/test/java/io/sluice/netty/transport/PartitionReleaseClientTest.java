package io.sluice.netty.transport;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shuffle master's release requests, where they cannot reach the environment. */
@Timeout(60)
class PartitionReleaseClientTest {

    // A release to an environment whose local data server closes while it accepts the release connection: Netty's
    // local server drops that connection, and the release still fails within the connect timeout.
    @Test
    void localReleaseToAServerClosingWhileItAccepts_failsWithinTheConnectTimeout() throws Exception {
        InetSocketAddress environment = new InetSocketAddress(InetAddress.getLoopbackAddress(), 3);
        try (ServerClosingWhileAccepting ignored = ServerClosingWhileAccepting.nettys(environment);
             PartitionReleaseClient client = new PartitionReleaseClient("local", null, Duration.ofMillis(200),
                     Duration.ofSeconds(5))) {
            ResultPartitionId partition = ResultPartitionId.random();

            CompletableFuture<Void> released = client.release(environment, List.of(partition));

            // Bounded only to turn a hang into a failure; the connect times out after 200 ms.
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> released.get(20, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof ShuffleException, failed.getCause().toString());
            String message = failed.getCause().getMessage();
            assertTrue(message.contains(partition.toString()) && message.contains("cannot connect"), message);
            assertTrue(message.contains("200 ms") && message.contains(ShuffleOptions.NETTY_CONNECT_TIMEOUT.key()),
                    message);
        }
    }
}
