package io.sluice.api;

/**
 * Data a consumer read failed an integrity check: a stored buffer or index entry of a blocking partition whose
 * checksum does not match, a file of another format version, or a data file shorter than its index says. The
 * partition's files are damaged; reading them again gives the same failure, so the partition has to be produced
 * again. The message names the partition, the subpartition, the file and the offset in it. Immutable; any thread.
 */
public class CorruptDataException extends ShuffleException {

    private static final long serialVersionUID = 1L;

    /** @param message what was damaged: partition, subpartition, file, offset, what was expected and found */
    public CorruptDataException(String message) {
        super(message);
    }

    /**
     * @param message what was damaged: partition, subpartition, file, offset, what was expected and found
     * @param cause the failure that showed it (a decoder's error, the end of a file)
     */
    public CorruptDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
