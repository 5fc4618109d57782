package io.sluice.flinkpeer;

import org.apache.flink.core.io.IOReadableWritable;
import org.apache.flink.types.LongValue;

/** The two record sizes of the record figures: {@code long} (8 bytes, a LongValue) and {@code b100}. */
enum RecordKind {
    LONG("long", Long.BYTES),
    B100("b100", HundredByteRecord.BYTES);

    /** Flink's length prefix in front of every serialized record. */
    static final int LENGTH_BYTES = Integer.BYTES;

    final String label;
    final int bytes;

    RecordKind(String label, int bytes) {
        this.label = label;
        this.bytes = bytes;
    }

    static RecordKind named(String label) {
        for (RecordKind kind : values()) {
            if (kind.label.equals(label)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("record kind '" + label + "' is not long or b100");
    }

    /** Bytes one record takes in a network buffer. */
    int wireBytes() {
        return LENGTH_BYTES + bytes;
    }

    IOReadableWritable newRecord() {
        return this == LONG ? new LongValue() : new HundredByteRecord();
    }

    void sequence(IOReadableWritable record, long value) {
        if (this == LONG) {
            ((LongValue) record).setValue(value);
        } else {
            ((HundredByteRecord) record).sequence(value);
        }
    }

    long sequence(IOReadableWritable record) {
        return this == LONG ? ((LongValue) record).getValue() : ((HundredByteRecord) record).sequence();
    }
}
