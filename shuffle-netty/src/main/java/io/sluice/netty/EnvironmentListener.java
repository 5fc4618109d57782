package io.sluice.netty;

import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;

/**
 * Told when an environment's writers and gates come and go, so that something that follows them (the Micrometer
 * binding) can add and remove what it keeps per writer and gate.
 *
 * <p>Threads: called on the thread that creates, releases or closes, with no environment lock held; must not
 * block. A writer or gate may be reported removed without having been reported added (one created before the
 * listener was added), and, under races with close, removed twice.
 */
interface EnvironmentListener {

    /** A writer was created (not set up yet). */
    void writerAdded(ResultPartitionWriter writer);

    /** A writer was released: read to its end after finish, closed, failed, or released by the environment. */
    void writerRemoved(ResultPartitionWriter writer);

    /** A gate was created (not set up yet). */
    void gateAdded(InputGate gate);

    /** A gate was closed. */
    void gateRemoved(InputGate gate);

    /** The environment was closed: every writer and gate is gone. */
    void environmentClosed();
}
