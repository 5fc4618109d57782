package io.sluice.flink;

import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Maps Flink's identities onto Sluice's. A Flink {@link ResultPartitionID} (result partition and execution attempt)
 * maps to a 128-bit Sluice {@link ResultPartitionId} by a name-based UUID of its text, the same on the JobManager and
 * on every TaskManager, so no table has to travel or be kept in step. A TaskManager's {@link ResourceID} maps to the
 * Sluice {@link ResourceId} with the same text, which makes a consumer in the producer's TaskManager read
 * in-process. Stateless; any thread.
 */
final class PartitionIds {

    private PartitionIds() {
    }

    /** Sluice's id for Flink's partition id: deterministic, distinct for distinct attempts. */
    static ResultPartitionId toSluice(ResultPartitionID flinkId) {
        String text = flinkId.getPartitionId() + "#" + flinkId.getProducerId();
        UUID uuid = UUID.nameUUIDFromBytes(text.getBytes(StandardCharsets.UTF_8));
        return new ResultPartitionId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /** Sluice's environment id for a TaskManager. */
    static ResourceId toSluice(ResourceID taskManager) {
        return new ResourceId(taskManager.getResourceIdString());
    }

    /** The 16 bytes of a Sluice partition id, for messages that carry it. */
    static byte[] bytes(ResultPartitionId id) {
        return ByteBuffer.allocate(16).putLong(id.upper()).putLong(id.lower()).array();
    }
}
