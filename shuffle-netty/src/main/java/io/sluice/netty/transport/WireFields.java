package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.nio.charset.StandardCharsets;

/**
 * How the field types of message bodies are written: a 128-bit id as two longs (upper first), a nullable id as a
 * presence byte (0 absent, 1 present) followed by the id when present, a nullable string as an int byte length
 * ({@code -1} for null) followed by its UTF-8 bytes. Readers throw {@link CorruptFrameException} when a length or
 * presence byte cannot be right. Stateless; any thread.
 */
final class WireFields {

    /** Two longs. */
    static final int ID_LENGTH = 2 * Long.BYTES;

    private static final byte ABSENT = 0;
    private static final byte PRESENT = 1;
    private static final int NULL_STRING_LENGTH = -1;

    private WireFields() {
    }

    static void writeId(ByteBuf out, ResultPartitionId id) {
        out.writeLong(id.upper());
        out.writeLong(id.lower());
    }

    static void writeId(ByteBuf out, InputChannelId id) {
        out.writeLong(id.upper());
        out.writeLong(id.lower());
    }

    static ResultPartitionId readResultPartitionId(ByteBuf in) {
        return new ResultPartitionId(in.readLong(), in.readLong());
    }

    static InputChannelId readInputChannelId(ByteBuf in) {
        return new InputChannelId(in.readLong(), in.readLong());
    }

    /** Encoded length of a nullable id: the presence byte plus the id when present. */
    static int nullableIdLength(Object id) {
        return 1 + (id == null ? 0 : ID_LENGTH);
    }

    static void writeNullableId(ByteBuf out, ResultPartitionId id) {
        out.writeByte(id == null ? ABSENT : PRESENT);
        if (id != null) {
            writeId(out, id);
        }
    }

    static void writeNullableId(ByteBuf out, InputChannelId id) {
        out.writeByte(id == null ? ABSENT : PRESENT);
        if (id != null) {
            writeId(out, id);
        }
    }

    static ResultPartitionId readNullableResultPartitionId(ByteBuf in) {
        return readPresence(in, "partition id") ? readResultPartitionId(in) : null;
    }

    static InputChannelId readNullableInputChannelId(ByteBuf in) {
        return readPresence(in, "receiver id") ? readInputChannelId(in) : null;
    }

    /** Encoded length of a nullable string: the int length plus its UTF-8 bytes. */
    static int nullableStringLength(String value) {
        return Integer.BYTES + (value == null ? 0 : ByteBufUtil.utf8Bytes(value));
    }

    static void writeNullableString(ByteBuf out, String value) {
        if (value == null) {
            out.writeInt(NULL_STRING_LENGTH);
            return;
        }
        out.writeInt(ByteBufUtil.utf8Bytes(value));
        ByteBufUtil.writeUtf8(out, value);
    }

    static String readNullableString(ByteBuf in) {
        int length = in.readInt();
        if (length == NULL_STRING_LENGTH) {
            return null;
        }
        checkLength(in, length, "string");
        String value = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return value;
    }

    /** Reads an int length of {@code what} and checks that it is non-negative and that many bytes follow. */
    static int readLength(ByteBuf in, String what) {
        int length = in.readInt();
        checkLength(in, length, what);
        return length;
    }

    private static void checkLength(ByteBuf in, int length, String what) {
        if (length < 0 || length > in.readableBytes()) {
            throw new CorruptFrameException("bad " + what + " length " + length + ": "
                    + in.readableBytes() + " bytes left in the frame");
        }
    }

    private static boolean readPresence(ByteBuf in, String what) {
        byte presence = in.readByte();
        if (presence != ABSENT && presence != PRESENT) {
            throw new CorruptFrameException("bad presence byte " + presence + " for the " + what
                    + ", expected " + ABSENT + " or " + PRESENT);
        }
        return presence == PRESENT;
    }
}
