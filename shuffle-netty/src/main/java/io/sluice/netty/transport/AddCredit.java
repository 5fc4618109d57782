package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

/**
 * Client to server: the receiver has {@code credit} more buffers for its channel; the server may send that many more
 * data buffers. Body: credit (4), receiver id (16), see {@link ReceiverValueMessage}. Immutable; any thread.
 *
 * @param credit     the number of new buffers, > 0
 * @param receiverId the input channel that has them
 */
public record AddCredit(int credit, InputChannelId receiverId) implements ReceiverValueMessage {

    static final byte ID = 3;

    static final int CREDIT_OFFSET = VALUE_OFFSET;
    static final int CREDIT_SIZE = VALUE_SIZE;

    /** Checks the fields. */
    public AddCredit {
        ReceiverValueMessage.checkFields(credit, "credit", receiverId);
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int value() {
        return credit;
    }

    /** Reads the body, the receiver id through the connection's {@code receiverIds}. */
    static AddCredit readBody(ByteBuf in, InputChannelIdReader receiverIds) {
        int credit = in.readInt();
        return new AddCredit(credit, receiverIds.read(in));
    }

    @Override
    public String toString() {
        return "AddCredit[" + credit + " for receiver " + receiverId + "]";
    }
}
