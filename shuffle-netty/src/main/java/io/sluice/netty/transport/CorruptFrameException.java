package io.sluice.netty.transport;

import io.netty.handler.codec.DecoderException;

/**
 * A decoder received bytes that are not a valid Sluice frame: wrong magic, unknown version or message id, a
 * length that is negative, shorter than the message needs or beyond the decoder's limit, or a body that does not
 * match its declared length. The stream cannot be re-synchronised after this, so whoever installs the decoder closes
 * the connection when it sees this exception; the decoder discards everything it receives afterwards.
 * The message states the offending numbers and what was expected. Immutable; any thread.
 */
public class CorruptFrameException extends DecoderException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the frame, with the numbers read and the numbers expected */
    public CorruptFrameException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong with the frame, with the numbers read and the numbers expected
     * @param cause   the failure that revealed it (e.g. a read past the end of the frame body)
     */
    public CorruptFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
