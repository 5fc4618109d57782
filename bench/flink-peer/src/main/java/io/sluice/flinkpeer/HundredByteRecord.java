package io.sluice.flinkpeer;

import java.io.IOException;
import org.apache.flink.core.io.IOReadableWritable;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** A 100-byte record: a sequence number and 92 filler bytes (104 bytes on the wire with Flink's length). */
public final class HundredByteRecord implements IOReadableWritable {

    static final int BYTES = 100;

    private long sequence;
    private final byte[] filler = new byte[BYTES - Long.BYTES];

    long sequence() {
        return sequence;
    }

    void sequence(long value) {
        sequence = value;
    }

    @Override
    public void write(DataOutputView out) throws IOException {
        out.writeLong(sequence);
        out.write(filler);
    }

    @Override
    public void read(DataInputView in) throws IOException {
        sequence = in.readLong();
        in.readFully(filler);
    }
}
