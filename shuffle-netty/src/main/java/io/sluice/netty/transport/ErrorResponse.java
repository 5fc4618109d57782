package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.InputChannelId;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * Server to client: a failure, either of one channel's request ({@code receiverId} set) or of the whole connection
 * ({@code receiverId} null: fatal, every channel on the connection fails). Only a kind, a message and ids travel:
 * throwables are never serialized, so the client never deserializes classes chosen by the remote side.
 * Body: kind (1), message (nullable string), partition id (nullable), receiver id (nullable); see {@link WireFields}.
 * Only the kind has a fixed offset; each later field starts where the one before it ends. Immutable; any thread.
 *
 * @param kind        what failed
 * @param message     the description, or null
 * @param partitionId the partition concerned; required for {@link ErrorKind#PARTITION_NOT_FOUND}, else nullable
 * @param receiverId  the failed channel, or null for a fatal, connection-wide error
 */
public record ErrorResponse(ErrorKind kind, String message, ResultPartitionId partitionId,
                            InputChannelId receiverId) implements NettyMessage {

    static final byte ID = 2;

    static final int KIND_OFFSET = 0;
    static final int KIND_SIZE = 1;
    /** The message's int length ({@code -1} for null), then its UTF-8 bytes. */
    static final int MESSAGE_OFFSET = KIND_OFFSET + KIND_SIZE;
    static final int MESSAGE_LENGTH_SIZE = Integer.BYTES;
    /** The size of an absent nullable id (its presence byte); a present one adds {@link WireFields#ID_LENGTH}. */
    static final int ABSENT_ID_SIZE = 1;

    /** kind + null message + absent partition id + absent receiver id. */
    static final int MIN_BODY_LENGTH = KIND_SIZE + MESSAGE_LENGTH_SIZE + ABSENT_ID_SIZE + ABSENT_ID_SIZE;

    /** Checks that a partition-not-found error names its partition. */
    public ErrorResponse {
        Objects.requireNonNull(kind, "kind");
        if (kind == ErrorKind.PARTITION_NOT_FOUND && partitionId == null) {
            throw new IllegalArgumentException("a " + kind + " error needs the partition id (receiver " + receiverId
                    + ", message " + message + ")");
        }
    }

    /**
     * The response reporting {@code cause} to {@code receiver} (null: to the whole connection).
     * {@link PartitionNotFoundException} -> {@link ErrorKind#PARTITION_NOT_FOUND} with its partition id and message,
     * {@link ProducerFailedException} -> {@link ErrorKind#PRODUCER_FAILED} with its message,
     * {@link CorruptDataException} -> {@link ErrorKind#CORRUPT_DATA} with its message, anything else ->
     * {@link ErrorKind#TRANSPORT} with {@code cause.toString()} (class name and message) for a foreign type, or the
     * message of a {@link TransportException}.
     */
    public static ErrorResponse of(Throwable cause, InputChannelId receiver) {
        Objects.requireNonNull(cause, "cause");
        if (cause instanceof PartitionNotFoundException notFound) {
            return new ErrorResponse(ErrorKind.PARTITION_NOT_FOUND, notFound.getMessage(), notFound.partitionId(),
                    receiver);
        }
        if (cause instanceof ProducerFailedException) {
            return new ErrorResponse(ErrorKind.PRODUCER_FAILED, cause.getMessage(), null, receiver);
        }
        if (cause instanceof CorruptDataException) {
            return new ErrorResponse(ErrorKind.CORRUPT_DATA, cause.getMessage(), null, receiver);
        }
        String message = cause instanceof TransportException ? cause.getMessage() : cause.toString();
        return new ErrorResponse(ErrorKind.TRANSPORT, message, null, receiver);
    }

    /**
     * The exception the client raises for this response.
     * {@link ErrorKind#PARTITION_NOT_FOUND} -> {@link PartitionNotFoundException} of the partition id, saying who
     * reported it; {@link ErrorKind#PRODUCER_FAILED} -> {@link ProducerFailedException} with the message as sent;
     * {@link ErrorKind#TRANSPORT} -> {@link TransportException} with the message and {@code remote};
     * {@link ErrorKind#CORRUPT_DATA} -> {@link CorruptDataException} with the message, saying who reported it.
     *
     * @param remote the server that sent the response
     */
    public Throwable toException(SocketAddress remote) {
        return switch (kind) {
            case PARTITION_NOT_FOUND -> new PartitionNotFoundException(partitionId, "reported by the producer at "
                    + remote);
            case PRODUCER_FAILED -> new ProducerFailedException(message != null ? message
                    : "producer failed without a message (reported by " + remote + ")");
            case TRANSPORT -> new TransportException(message != null ? message
                    : "error without a message from the server", remote);
            case CORRUPT_DATA -> new CorruptDataException((message != null ? message : "corrupt data without a"
                    + " message") + " (reported by the producer at " + remote + ")");
        };
    }

    /** @return true when no receiver is named: the error concerns the whole connection */
    public boolean isFatal() {
        return receiverId == null;
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int bodyLength() {
        return KIND_SIZE + WireFields.nullableStringLength(message) + WireFields.nullableIdLength(partitionId)
                + WireFields.nullableIdLength(receiverId);
    }

    @Override
    public void writeBody(ByteBuf out) {
        out.writeByte(kind.code());
        WireFields.writeNullableString(out, message);
        WireFields.writeNullableId(out, partitionId);
        WireFields.writeNullableId(out, receiverId);
    }

    static ErrorResponse readBody(ByteBuf in) {
        ErrorKind kind = ErrorKind.fromCode(in.readByte());
        String message = WireFields.readNullableString(in);
        ResultPartitionId partitionId = WireFields.readNullableResultPartitionId(in);
        return new ErrorResponse(kind, message, partitionId, WireFields.readNullableInputChannelId(in));
    }

    @Override
    public String toString() {
        return "ErrorResponse[" + kind + (isFatal() ? ", fatal" : ", receiver " + receiverId)
                + (partitionId == null ? "" : ", partition " + partitionId) + ": " + message + "]";
    }
}
