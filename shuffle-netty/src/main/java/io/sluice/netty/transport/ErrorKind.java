package io.sluice.netty.transport;

/**
 * What an {@link ErrorResponse} reports; decides the exception the client raises. Written as a one-byte code.
 */
public enum ErrorKind {

    /** The requested partition is not (or no longer) registered at the producer: the client retries with backoff. */
    PARTITION_NOT_FOUND((byte) 0),

    /** The producer of the partition failed: the consumer fails with {@code ProducerFailedException}. */
    PRODUCER_FAILED((byte) 1),

    /** Anything else (the server handler failed, a bad message arrived): {@code TransportException}. */
    TRANSPORT((byte) 2),

    /** The partition's stored data failed an integrity check: {@code CorruptDataException}. */
    CORRUPT_DATA((byte) 3);

    private final byte code;

    ErrorKind(byte code) {
        this.code = code;
    }

    byte code() {
        return code;
    }

    static ErrorKind fromCode(byte code) {
        return switch (code) {
            case 0 -> PARTITION_NOT_FOUND;
            case 1 -> PRODUCER_FAILED;
            case 2 -> TRANSPORT;
            case 3 -> CORRUPT_DATA;
            default -> throw new CorruptFrameException("unknown error kind code " + code + ", expected 0 to 3");
        };
    }
}
