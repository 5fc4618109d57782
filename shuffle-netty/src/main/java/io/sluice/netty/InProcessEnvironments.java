package io.sluice.netty;

import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The environments of this JVM that serve no data port (local communication only), by resource id: a shuffle
 * master in the same JVM releases their partitions through here, since there is no port to send the release to.
 * Environments with a data port are reached over it instead ({@code ReleasePartitions}).
 *
 * <p>Thread-safe; static, as a JVM holds one set of in-process environments.
 */
final class InProcessEnvironments {

    private static final Map<ResourceId, Set<NettyShuffleEnvironment>> BY_ID = new ConcurrentHashMap<>();

    private InProcessEnvironments() {
    }

    /** Adds an environment without a data port; {@link #remove} at its close. */
    static void add(NettyShuffleEnvironment environment) {
        BY_ID.computeIfAbsent(environment.resourceId(),
                id -> Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>())))
                .add(environment);
    }

    static void remove(NettyShuffleEnvironment environment) {
        BY_ID.computeIfPresent(environment.resourceId(), (id, set) -> {
            set.remove(environment);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * Releases {@code partitionId} in every in-process environment named {@code producer} (partition ids are
     * unique, so only the one that holds it is affected).
     *
     * @return whether any such environment exists in this JVM
     */
    static boolean release(ResourceId producer, ResultPartitionId partitionId) {
        Set<NettyShuffleEnvironment> environments = BY_ID.get(producer);
        if (environments == null) {
            return false;
        }
        List<NettyShuffleEnvironment> copy;
        synchronized (environments) {
            copy = List.copyOf(environments);
        }
        for (NettyShuffleEnvironment environment : copy) {
            environment.releasePartitionsLocally(List.of(partitionId));
        }
        return !copy.isEmpty();
    }
}
