package io.sluice.netty.transport;

import io.sluice.api.ShuffleOptions;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.Locale;

/**
 * {@code shuffle.blocking.zero-copy}: whether a blocking partition's data goes to a TCP connection (without TLS or
 * compression) straight from its file with sendfile, or is read into the environment's read budget and written from
 * there. Decided once per connection, by the server, from the consumer's address. Immutable; any thread.
 *
 * <p>Why not always sendfile: between two environments on one host the receiver copies every byte out of the socket
 * whichever way it was sent, so sendfile saves only the sender's copy, and it costs the event loops more CPU than
 * reading and writing without making the read faster: a sendfile and a header write per buffer (or per run of
 * buffers) against one {@code writev} for many buffers. {@code sluice-bench --partition-type blocking --bytes 2g}, run
 * once with {@code --conf shuffle.blocking.zero-copy=always} and once with {@code =never}, shows it in the event
 * loops' CPU time. Across a network the saved copy is the point of sendfile, so {@link #AUTO} uses it for every
 * consumer that is not on this host.
 */
public enum ZeroCopyMode {

    /** Sendfile to consumers on other hosts; the read budget for consumers on this host (a loopback or local address). */
    AUTO,
    /** Sendfile to every TCP consumer. */
    ALWAYS,
    /** Never sendfile: always through the read budget. */
    NEVER;

    /**
     * @param value the option's value: auto, always or never (checked by the option's rule)
     * @throws IllegalArgumentException naming the option for any other value
     */
    public static ZeroCopyMode of(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ShuffleOptions.BLOCKING_ZERO_COPY.key() + "=" + value
                    + " is not one of auto, always, never", e);
        }
    }

    /**
     * Whether data for the consumer at {@code remote} goes by sendfile. A remote address that is not an IP socket
     * address (the local transport) never does; the caller also rules out TLS and compression.
     */
    boolean sendsFilesTo(SocketAddress remote) {
        return switch (this) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> remote instanceof InetSocketAddress socket && !isThisHost(socket.getAddress());
        };
    }

    /** A loopback address, or the address of one of this host's interfaces. */
    static boolean isThisHost(InetAddress address) {
        if (address == null) {
            return false; // unresolved: treat as remote
        }
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
