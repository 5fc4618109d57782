package io.sluice.api;

import java.net.SocketAddress;

/**
 * The connection to a producer was lost, refused, or received garbage; every channel of that
 * connection fails with one of these. The message always names the remote address: when the
 * given message does not already contain it, " (remote address X)" is appended.
 * Immutable; any thread.
 */
public class TransportException extends ShuffleException {

    private static final long serialVersionUID = 1L;

    /** The peer the failure concerns; null when unknown. */
    private final SocketAddress remoteAddress;

    /**
     * @param message what happened to the connection
     * @param remoteAddress the other end of the connection; null when not known
     */
    public TransportException(String message, SocketAddress remoteAddress) {
        super(withAddress(message, remoteAddress));
        this.remoteAddress = remoteAddress;
    }

    /**
     * @param message what happened to the connection
     * @param remoteAddress the other end of the connection; null when not known
     * @param cause the underlying failure (e.g. the I/O error from the socket)
     */
    public TransportException(String message, SocketAddress remoteAddress, Throwable cause) {
        super(withAddress(message, remoteAddress), cause);
        this.remoteAddress = remoteAddress;
    }

    /** @return the other end of the failed connection, or null when not known */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    private static String withAddress(String message, SocketAddress remoteAddress) {
        String address = String.valueOf(remoteAddress);
        if (message != null && message.contains(address)) {
            return message;
        }
        return message + " (remote address " + address + ")";
    }
}
