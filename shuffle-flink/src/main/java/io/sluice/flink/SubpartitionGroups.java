package io.sluice.flink;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.UnionInputGate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one Flink gate is read with Sluice gates. A Sluice gate reads one range of subpartition indexes (often one
 * index) of each of its channels' partitions; a Flink gate may consume different indexes or ranges on different
 * channels (one index per channel in streaming exchanges; a range per channel under Flink's adaptive batch
 * scheduler, and different ranges for different partitions when it splits skewed data). The channels are therefore
 * grouped by range, in order of first appearance, one Sluice gate per group, read as a Sluice {@link UnionInputGate}
 * when there is more than one group. Flink's channel {@code i} is channel {@link #toSluiceChannel()}{@code [i]} of
 * the resulting gate (the union numbers channels gate by gate).
 *
 * <p>Immutable once built; built and used by the thread that creates the gate.
 */
final class SubpartitionGroups {

    private final List<InputGateDeploymentDescriptor> sluiceGates;
    private final int[] toSluiceChannel;

    private SubpartitionGroups(List<InputGateDeploymentDescriptor> sluiceGates, int[] toSluiceChannel) {
        this.sluiceGates = sluiceGates;
        this.toSluiceChannel = toSluiceChannel;
    }

    /**
     * @param subpartitions the subpartition index each Flink channel consumes, in Flink's channel order
     * @param channels      Sluice's descriptor of the partition each Flink channel reads, in the same order
     * @return the grouping
     */
    static SubpartitionGroups of(int[] subpartitions, ShuffleDescriptor[] channels) {
        return of(subpartitions, subpartitions, channels);
    }

    /**
     * @param first    the first subpartition index each Flink channel consumes, in Flink's channel order
     * @param last     the last one, at least {@code first}, in the same order (equal to it for one subpartition)
     * @param channels Sluice's descriptor of the partition each Flink channel reads, in the same order
     * @return the grouping
     */
    static SubpartitionGroups of(int[] first, int[] last, ShuffleDescriptor[] channels) {
        Map<List<Integer>, List<Integer>> channelsByRange = new LinkedHashMap<>();
        for (int i = 0; i < first.length; i++) {
            channelsByRange.computeIfAbsent(List.of(first[i], last[i]), k -> new ArrayList<>()).add(i);
        }
        List<InputGateDeploymentDescriptor> gates = new ArrayList<>(channelsByRange.size());
        int[] toSluiceChannel = new int[first.length];
        int offset = 0;
        for (Map.Entry<List<Integer>, List<Integer>> group : channelsByRange.entrySet()) {
            List<ShuffleDescriptor> groupChannels = new ArrayList<>(group.getValue().size());
            for (int flinkChannel : group.getValue()) {
                toSluiceChannel[flinkChannel] = offset + groupChannels.size();
                groupChannels.add(channels[flinkChannel]);
            }
            gates.add(new InputGateDeploymentDescriptor(group.getKey().get(0), group.getKey().get(1), groupChannels));
            offset += groupChannels.size();
        }
        return new SubpartitionGroups(List.copyOf(gates), toSluiceChannel);
    }

    /** @return the Sluice gate's channel of each Flink channel (a fresh copy) */
    int[] toSluiceChannel() {
        return toSluiceChannel.clone();
    }

    /** @return one Sluice gate per group, in group order */
    List<InputGateDeploymentDescriptor> sluiceGates() {
        return sluiceGates;
    }

    /**
     * Creates the gates on {@code environment}.
     *
     * @return the one gate, or the union of the groups' gates
     */
    InputGate createGate(ShuffleEnvironment environment, String ownerName) {
        List<InputGate> created = environment.createInputGates(ownerName, sluiceGates);
        return created.size() == 1 ? created.get(0) : new UnionInputGate(created);
    }
}
