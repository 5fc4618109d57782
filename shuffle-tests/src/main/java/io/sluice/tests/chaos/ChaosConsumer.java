package io.sluice.tests.chaos;

import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.tests.support.RecordVerificationException;
import io.sluice.tests.support.RecordVerifier;

import java.nio.ByteBuffer;

/**
 * One consumer of a chaos job: opens its gate (input channel p is producer p), reads it to the end, verifies every
 * record (channel, sequence, checksum), where every event arrived and each producer's final counts, sends its task
 * events and fires the faults keyed to its record count. Wrong data throws {@link RecordVerificationException}.
 * Runs on its own thread.
 */
final class ChaosConsumer {

    /** Hands a consumer its gate, set up; called on the consumer's thread. */
    @FunctionalInterface
    interface GateSource {
        /**
         * @return the gate, set up; the consumer closes it
         * @throws Exception what creating or setting it up threw: the consumer's outcome
         */
        InputGate open() throws Exception;
    }

    private final int index;
    private final ChaosScenario scenario;
    private final GateSource gateSource;
    private final FaultActions actions;
    private final RecordVerifier verifier;
    private final int[] nextEvent;
    private final int[] nextPriority;
    private long read;

    /**
     * @param index    the consumer's number, which is also the subpartition it reads
     * @param scenario the job
     * @param gateSource its gate; this task closes it
     * @param actions  what its faults do
     */
    ChaosConsumer(int index, ChaosScenario scenario, GateSource gateSource, FaultActions actions) {
        this.index = index;
        this.scenario = scenario;
        this.gateSource = gateSource;
        this.actions = actions;
        int producers = scenario.producers();
        int[] channels = new int[producers];
        for (int p = 0; p < producers; p++) {
            channels[p] = p * scenario.consumers() + index;
        }
        this.verifier = new RecordVerifier("consumer " + index, channels);
        this.nextEvent = new int[producers];
        this.nextPriority = new int[producers];
    }

    /** @return records read so far (read after the thread ended) */
    long read() {
        return read;
    }

    /** @throws Exception what the gate threw, or what arrived wrong */
    void run() throws Exception {
        try {
            readToEnd(gateSource.open());
        } finally {
            actions.consumerEnded(index);
        }
    }

    private void readToEnd(InputGate gate) throws Exception {
        long[] taskEvents = scenario.taskEvents()[index];
        int taskEventsSent = 0;
        try (RecordReader reader = new RecordReader(gate)) {
            while (true) {
                int sleepEvery = actions.consumerReached(index, read, gate);
                while (taskEventsSent < taskEvents.length && taskEvents[taskEventsSent] == read) {
                    gate.sendTaskEvent(ChaosTaskEvent.encode(index, taskEventsSent++));
                }
                RecordOrEvent next = reader.next();
                if (next == null) {
                    break;
                }
                if (next.isEvent()) {
                    event(next.channelIndex(), next.data());
                } else {
                    verifier.verify(next.channelIndex(), next.data());
                    read++;
                    actions.consumerRead(index);
                    if (sleepEvery > 0 && read % sleepEvery == 0) {
                        Thread.sleep(1);
                    }
                }
            }
            verifier.verifyAllEnded();
        }
    }

    private void event(int channel, ByteBuffer event) {
        String problem = ChaosEvent.problem(event, scenario.consumers());
        if (problem == null && ChaosEvent.producer(event) != channel) {
            problem = "an event of producer " + ChaosEvent.producer(event) + " (events crossed channels)";
        }
        if (problem != null) {
            throw wrong(channel, problem);
        }
        long emittedBefore = ChaosEvent.count(event, index);
        long arrivedAfter = verifier.records(channel);
        switch (ChaosEvent.kind(event)) {
            case ChaosEvent.EVENT -> {
                checkIndex(channel, "event", ChaosEvent.index(event), nextEvent[channel]++);
                if (arrivedAfter != emittedBefore) {
                    throw wrong(channel, "event " + ChaosEvent.index(event) + " was broadcast after record "
                            + emittedBefore + " but arrived after record " + arrivedAfter);
                }
            }
            case ChaosEvent.PRIORITY -> {
                checkIndex(channel, "priority event", ChaosEvent.index(event), nextPriority[channel]++);
                if (arrivedAfter > emittedBefore) {
                    throw wrong(channel, "priority event " + ChaosEvent.index(event) + " was broadcast after record "
                            + emittedBefore + " but arrived after record " + arrivedAfter + " (later than sent)");
                }
            }
            default -> {
                verifier.endOfChannel(channel, emittedBefore);
                if (ChaosEvent.eventsSent(event) != nextEvent[channel]
                        || ChaosEvent.prioritySent(event) != nextPriority[channel]) {
                    throw wrong(channel, "the producer sent " + ChaosEvent.eventsSent(event) + " events and "
                            + ChaosEvent.prioritySent(event) + " priority events, " + nextEvent[channel] + " and "
                            + nextPriority[channel] + " arrived");
                }
            }
        }
    }

    private void checkIndex(int channel, String what, int got, int expected) {
        if (got != expected) {
            throw wrong(channel, "expected " + what + " " + expected + ", got " + got);
        }
    }

    private RecordVerificationException wrong(int channel, String detail) {
        return new RecordVerificationException("consumer " + index, channel, channel * scenario.consumers() + index,
                detail);
    }
}
