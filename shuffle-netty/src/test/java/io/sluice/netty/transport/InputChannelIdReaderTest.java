package io.sluice.netty.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.Test;

/** Receiver ids read off the wire: the right id every time, the same instance while it keeps its slot. */
class InputChannelIdReaderTest {

    private final InputChannelIdReader reader = new InputChannelIdReader();

    @Test
    void anIdReadAgain_isTheInstanceReadBefore() {
        InputChannelId id = InputChannelId.random();

        InputChannelId first = reader.read(wire(id));
        InputChannelId second = reader.read(wire(id));

        assertEquals(id, first);
        assertSame(first, second);
    }

    @Test
    void idsSharingASlot_areEachReadCorrectly_theLastOneKeepsTheSlot() {
        // The slot is the low 8 bits of the folded upper ^ lower: 5 and 5 + 256 share one.
        InputChannelId a = new InputChannelId(0, 5);
        InputChannelId c = new InputChannelId(0, 5 + InputChannelIdReader.SLOTS);

        InputChannelId readA = reader.read(wire(a));
        InputChannelId readC = reader.read(wire(c));
        InputChannelId readAAgain = reader.read(wire(a));

        assertEquals(a, readA);
        assertEquals(c, readC);
        assertEquals(a, readAAgain);
        assertNotSame(readA, readAAgain, "c took a's slot in between");
        assertSame(readAAgain, reader.read(wire(a)));
    }

    @Test
    void manyChannelsOnOneConnection_areReadCorrectly_inRoundRobin() {
        InputChannelId[] ids = new InputChannelId[1000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = InputChannelId.random();
        }
        for (int round = 0; round < 3; round++) {
            for (InputChannelId id : ids) {
                assertEquals(id, reader.read(wire(id)));
            }
        }
    }

    @Test
    void read_advancesPastTheSixteenBytes() {
        ByteBuf in = wire(new InputChannelId(3, 4)).writeInt(42);

        reader.read(in);

        assertEquals(42, in.readInt());
    }

    private static ByteBuf wire(InputChannelId id) {
        return Unpooled.buffer(20).writeLong(id.upper()).writeLong(id.lower());
    }
}
