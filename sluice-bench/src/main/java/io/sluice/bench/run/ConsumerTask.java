package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;

/**
 * One consumer: reads every record and event of its gate until the gate finishes, hands them to
 * its {@link DeliveryCheck}, then closes the gate. Runs on its own thread; {@link #abort()} from any thread.
 */
final class ConsumerTask implements TaskGroup.Task {

    private final int index;
    private final RecordReader reader;
    private final DeliveryCheck check;

    /**
     * @param index the consumer's number
     * @param gate a gate that is set up; this task owns and closes it
     * @param check what to do with each record
     */
    ConsumerTask(int index, InputGate gate, DeliveryCheck check) {
        this.index = index;
        this.reader = new RecordReader(gate);
        this.check = check;
    }

    @Override
    public String name() {
        return "consumer-" + index;
    }

    /** @return the check, with its latencies and counters */
    DeliveryCheck check() {
        return check;
    }

    @Override
    public void run() throws Exception {
        RecordOrEvent next;
        while ((next = reader.next()) != null) {
            if (next.isEvent()) {
                check.event(next.channelIndex(), next.data());
            } else {
                check.record(next.channelIndex(), next.data());
            }
        }
        check.finished();
        reader.close();
    }

    /** Closes the reader and its gate, which wakes a blocked read. */
    @Override
    public void abort() {
        reader.close();
    }
}
