package io.sluice.tests.transport;

import io.sluice.api.TransportException;

import java.net.SocketAddress;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a consumer must see when the connection to its producer is lost (the producer's environment closed, its
 * process died): a {@link TransportException} that names the remote address and the producer. Stateless.
 */
final class LostConnections {

    private LostConnections() {
    }

    /**
     * @param failure what the consumer's read threw
     * @param producerId the {@code ResourceId} value of the producer's environment
     * @param consumer names the consumer in the assertion messages
     */
    static void assertTransportExceptionNamingTheProducer(Throwable failure, String producerId, String consumer) {
        assertInstanceOf(TransportException.class, failure, "what " + consumer + " got");
        SocketAddress remote = ((TransportException) failure).remoteAddress();
        assertNotNull(remote, "the remote address of " + consumer + "'s failure");
        assertTrue(failure.getMessage().contains(String.valueOf(remote)) && failure.getMessage().contains(producerId),
                consumer + "'s failure names the remote address " + remote + " and the producer " + producerId + ": "
                        + failure.getMessage());
    }
}
