package io.sluice.netty.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Right behind the server's SslHandler: a peer that does not complete a TLS handshake (no TLS at all, an untrusted
 * or missing certificate, or no handshake within the timeout) is refused with exactly one log line naming its
 * address and the reason, and its connection is closed. Errors before the handshake completed are that refusal, so
 * they stop here instead of reaching the request handler (which would log them again). After a successful handshake
 * the guard passes everything on.
 *
 * <p>One instance per connection; event loop only.
 */
final class TlsHandshakeGuard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakeGuard.class);

    /** A log line stays one line. */
    private static final int MAX_REASON_CHARS = 300;

    private enum State { HANDSHAKING, TRUSTED, REFUSED }

    private State state = State.HANDSHAKING;

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent handshake && state == State.HANDSHAKING) {
            if (handshake.isSuccess()) {
                state = State.TRUSTED;
            } else {
                refuse(ctx, handshake.cause());
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (state == State.TRUSTED) {
            super.exceptionCaught(ctx, cause);
            return;
        }
        refuse(ctx, cause);
    }

    private void refuse(ChannelHandlerContext ctx, Throwable cause) {
        if (state != State.REFUSED) {
            state = State.REFUSED;
            LOG.warn("Refused data connection from {}: TLS handshake failed: {}", ctx.channel().remoteAddress(),
                    reason(cause));
        }
        ctx.close();
    }

    private static String reason(Throwable cause) {
        if (cause instanceof NotSslRecordException) {
            // Its message dumps the peer's bytes; the fact is enough.
            return "the peer does not speak TLS (" + NotSslRecordException.class.getSimpleName() + ")";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String reason = root == cause ? cause.toString() : cause.getMessage() + " (" + root + ")";
        return reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS) + "...";
    }
}
