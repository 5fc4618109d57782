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
    private final InputGate gate;
    private final RecordReader reader;
    private final DeliveryCheck check;
    private final boolean confirmReads;

    /**
     * @param index the consumer's number
     * @param gate a gate that is set up; this task owns and closes it
     * @param check what to do with each record
     * @param confirmReads whether to send each producer a {@link ReadConfirmation} once its stream is verified, and
     *     then resume the channel its blocking trailer holds back
     */
    ConsumerTask(int index, InputGate gate, DeliveryCheck check, boolean confirmReads) {
        this.index = index;
        this.gate = gate;
        this.reader = new RecordReader(gate);
        this.check = check;
        this.confirmReads = confirmReads;
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
                if (confirmReads) {
                    // The producer sent the trailer as a blocking event: its end comes only after the resume, which
                    // follows the confirmation on the same connection, so the confirmation finds the partition there.
                    int channel = next.channelIndex();
                    gate.sendTaskEvent(channel, check.confirmation(channel));
                    gate.resumeConsumption(channel);
                }
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
