package io.sluice.tests.support;

/**
 * A record that arrived wrong: lost, reordered, damaged, on the wrong channel, or a channel that
 * ended with the wrong count. The message names the gate, the input channel and the record channel.
 */
public class RecordVerificationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int inputChannel;
    private final int recordChannel;
    private final String detail;

    /**
     * @param gateName the gate that received it, e.g. {@code "consumer 3"}
     * @param inputChannel the gate channel the record arrived on
     * @param recordChannel the channel the records of that gate channel must carry
     * @param detail what is wrong, e.g. {@code "expected record 7, got record 9 (2 lost)"}
     */
    public RecordVerificationException(String gateName, int inputChannel, int recordChannel, String detail) {
        super(gateName + ", input channel " + inputChannel + " (record channel " + recordChannel + "): " + detail);
        this.inputChannel = inputChannel;
        this.recordChannel = recordChannel;
        this.detail = detail;
    }

    /** @return the gate channel the record arrived on */
    public int inputChannel() {
        return inputChannel;
    }

    /** @return the channel the records of that gate channel must carry */
    public int recordChannel() {
        return recordChannel;
    }

    /** @return what is wrong, without the channel */
    public String detail() {
        return detail;
    }
}
