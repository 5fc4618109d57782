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
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record ProducerDescriptor(ResourceId producerId, InetSocketAddress dataAddress) implements Serializable {

    /**
     * @param producerId the producer's environment
     * @param dataAddress where consumers connect to read; null for local communication only
     * @throws NullPointerException when {@code producerId} is null
     */
    public ProducerDescriptor {
        Objects.requireNonNull(producerId, "producerId");
    }
}
