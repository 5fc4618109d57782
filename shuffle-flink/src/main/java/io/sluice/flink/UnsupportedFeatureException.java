package io.sluice.flink;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A Flink job asked for a feature Sluice's shuffle does not carry (unaligned checkpoints, a hybrid partition, a
 * deployment Sluice cannot build); the message names the feature and the option to change.
 *
 * <p>Flink's scheduler treats it as a non-recoverable error ({@link ThrowableAnnotation} with
 * {@link ThrowableType#NonRecoverableError}, which Flink looks for along a failure's whole cause chain, whether the
 * failure comes from a task or from the JobManager): the job fails at once, whatever its restart strategy, because a
 * restarted job would ask for the same feature and be refused again. The class must be loadable on the JobManager
 * (it is, from Flink's {@code lib/}) so that a task's failure deserializes to it there.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class UnsupportedFeatureException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param message what was asked, why Sluice refuses it, and what to change */
    public UnsupportedFeatureException(String message) {
        super(message);
    }
}
