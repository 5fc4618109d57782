package io.sluice.api;

/**
 * Receives the data in flight that an engine persists with a checkpoint that does not wait for that data to drain
 * (Flink's unaligned checkpoints): on the producer side the data buffers a priority event overtook in a subpartition
 * ({@link ResultPartitionWriter#broadcastPriorityEvent}), on the consumer side the data buffers a channel holds or
 * delivers before its checkpoint's priority event ({@link InputGate#startPersisting}).
 *
 * <p>Called on the thread that called the method the sink was handed to (the producer's or the consumer's thread,
 * never a transport thread), in stream order per index. The sink must not block for long and must not call back
 * into the writer or gate that hands it buffers.
 */
@FunctionalInterface
public interface InFlightDataSink {

    /**
     * One data buffer in flight.
     *
     * <p>Ownership: {@code buffer} is a reference of its own, retained for the sink, which must
     * {@link BufferOrEvent#recycle() recycle} it exactly once, from any thread, once done with its bytes (typically
     * after writing them). Its bytes stay valid and unchanged until then, although the same data also goes on to its
     * consumer as usual. It is never an event; {@link BufferOrEvent#channelIndex()} is {@code index}.
     *
     * @param index  the subpartition (writer side) or the gate channel (gate side) the buffer belongs to
     * @param buffer framed record bytes, in stream order; a buffer may begin or end inside a record
     */
    void accept(int index, BufferOrEvent buffer);
}
