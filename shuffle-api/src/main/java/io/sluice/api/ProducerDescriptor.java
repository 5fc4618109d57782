package io.sluice.api;

import java.io.Serializable;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Where a partition's producer runs: its environment and that environment's data address
 * ({@link ShuffleEnvironment#dataAddress()}). Immutable value; any thread.
 *
 * @param producerId the producer's environment; not null
 * @param dataAddress where consumers connect to read; null only for an environment that
 *     communicates locally only
 */
public record ProducerDescriptor(ResourceId producerId, InetSocketAddress dataAddress) implements Serializable {

    /** @throws NullPointerException when {@code producerId} is null */
    public ProducerDescriptor {
        Objects.requireNonNull(producerId, "producerId");
    }
}
