package io.sluice.netty.transport;

import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.sluice.api.ShuffleOptions;

import java.nio.channels.ClosedChannelException;

/**
 * What a consumer can tell when its producer's TLS setting differs from its own, for the messages of its
 * {@link io.sluice.api.TransportException}s. A producer without TLS reads a consumer's TLS hello as a corrupt frame
 * and closes the connection (the handshake then fails with a {@link ClosedChannelException}, whose message is null),
 * or answers in plaintext ({@link NotSslRecordException}). A producer with TLS reads a plaintext partition request as
 * a record that is not TLS and closes the connection before it sent anything.
 *
 * <p>Stateless; any thread.
 */
final class TlsMismatch {

    private TlsMismatch() {
    }

    /**
     * @param cause why this consumer's TLS handshake failed, as the SslHandler reports it
     * @return what happened and what to change; never "null"
     */
    static String handshakeFailed(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof ClosedChannelException || t instanceof NotSslRecordException) {
                return "the producer did not answer with TLS (" + cause + "): it is likely a server without TLS; "
                        + ShuffleOptions.SSL_ENABLED.key() + " must be the same on both sides (true here)";
            }
        }
        return cause + "; both ends need a certificate that chains to the other's truststore (shuffle.security.ssl.*)";
    }

    /**
     * @param channel a connection of this consumer that the producer closed before it sent anything
     * @return the possible causes, with TLS among them where it can be one: a TCP connection without TLS
     */
    static String closedBeforeAnything(Channel channel) {
        String died = "the producer environment closed or died";
        if (channel instanceof SocketChannel && channel.pipeline().get(SslHandler.class) == null) {
            return died + ", or it requires TLS and this consumer connected without: "
                    + ShuffleOptions.SSL_ENABLED.key() + " must be the same on both sides (false here)";
        }
        return died;
    }
}
