package io.sluice.api;

import java.net.InetAddress;
import java.util.Objects;

/**
 * What an environment is created from. Immutable value; any thread.
 *
 * @param config the environment's configuration; not null
 * @param resourceId the environment's identity; not null
 * @param networkMemoryBytes all the memory the environment may use for buffers
 * @param localCommunicationOnly true when the environment starts no transport (every
 *     producer it reads from lives in the same environment)
 * @param bindAddress where the transport listens; not null
 */
public record ShuffleEnvironmentContext(ShuffleConfig config, ResourceId resourceId,
                                        long networkMemoryBytes, boolean localCommunicationOnly,
                                        InetAddress bindAddress) {

    /**
     * @param config the environment's configuration
     * @param resourceId the environment's identity
     * @param networkMemoryBytes all the memory the environment may use for buffers
     * @param localCommunicationOnly true when the environment starts no transport
     * @param bindAddress where the transport listens
     * @throws NullPointerException for a null config, resource id or bind address
     */
    public ShuffleEnvironmentContext {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(resourceId, "resourceId");
        Objects.requireNonNull(bindAddress, "bindAddress");
    }

    /**
     * The usual context: memory from {@link ShuffleOptions#MEMORY_TOTAL}, communication over the
     * transport, bound to the loopback address.
     *
     * @param config the environment's configuration
     * @param resourceId the environment's identity
     * @return the context
     * @throws IllegalArgumentException when {@code shuffle.memory.total} does not parse
     */
    public static ShuffleEnvironmentContext of(ShuffleConfig config, ResourceId resourceId) {
        return new ShuffleEnvironmentContext(config, resourceId, config.get(ShuffleOptions.MEMORY_TOTAL),
                false, InetAddress.getLoopbackAddress());
    }
}
