package io.sluice.netty.transport;

/**
 * What a {@link BufferResponse} carries. Data needs credit and lands in one of the receiver's network buffers;
 * events need no credit and land in a heap buffer of their own size. A priority event overtakes the data already
 * queued at the receiving channel. Written as a one-byte code (not the ordinal, so reordering constants cannot change
 * the protocol).
 */
public enum DataType {

    /** Records: needs credit, decoded into a pooled network buffer of the receiving channel. */
    DATA_BUFFER((byte) 0),

    /** An event in order with the data (e.g. end of partition). */
    EVENT_BUFFER((byte) 1),

    /** An event that overtakes the data queued at the receiver. */
    PRIORITY_EVENT_BUFFER((byte) 2);

    private final byte code;

    DataType(byte code) {
        this.code = code;
    }

    /** @return true for {@link #DATA_BUFFER}, false for the event types */
    public boolean isBuffer() {
        return this == DATA_BUFFER;
    }

    /** @return true for {@link #PRIORITY_EVENT_BUFFER} */
    public boolean isPriority() {
        return this == PRIORITY_EVENT_BUFFER;
    }

    byte code() {
        return code;
    }

    static DataType fromCode(byte code) {
        return switch (code) {
            case 0 -> DATA_BUFFER;
            case 1 -> EVENT_BUFFER;
            case 2 -> PRIORITY_EVENT_BUFFER;
            default -> throw new CorruptFrameException("unknown data type code " + code + ", expected 0, 1 or 2");
        };
    }
}
