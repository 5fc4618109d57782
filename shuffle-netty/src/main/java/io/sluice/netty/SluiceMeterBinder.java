package io.sluice.netty;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.netty.metrics.RateSinceLastRead;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds one environment's metrics to a Micrometer {@link MeterRegistry}: {@link #bind} once, and every writer and
 * gate the environment has or creates gets its meters, removed again when the writer is released, the gate
 * closed, the environment closed, or this binding {@link #close() closed}. The meters read the API's snapshots
 * ({@link ShuffleEnvironment#metrics()}, {@link ResultPartitionWriter#metrics()}, {@link InputGate#metrics()})
 * when the registry asks; the data path pays nothing for them.
 *
 * <p>Micrometer is an optional dependency of shuffle-netty: this class is the only one that references it, and it
 * is loaded only by an application that calls {@link #bind}, which then brings {@code micrometer-core} itself.
 *
 * <p>Meter names and tags are listed in docs/using.md ("Metrics"). Every meter has the tag {@code environment} (the
 * resource id); a writer's also {@code partition} and {@code owner}; a gate's {@code gate} (its owner's name, with
 * {@code #2}, {@code #3}... appended when several live gates share it).
 *
 * <p>Threads: any; the environment calls it on the creating, releasing or closing thread, and it never blocks.
 */
public final class SluiceMeterBinder implements AutoCloseable {

    private final NettyShuffleEnvironment environment;
    private final MeterRegistry registry;
    private final Tags environmentTags;
    private final Listener listener = new Listener();

    private final Object lock = new Object();
    @GuardedBy("lock")
    private final List<Meter> environmentMeters = new ArrayList<>();
    /** The meters of each writer and gate bound; an empty list while they are being registered. */
    @GuardedBy("lock")
    private final Map<Object, List<Meter>> metersByWriterOrGate = new IdentityHashMap<>();
    /** The {@code gate} tag of each gate bound. */
    @GuardedBy("lock")
    private final Map<InputGate, String> gateNames = new IdentityHashMap<>();
    @GuardedBy("lock")
    private boolean closed;

    private SluiceMeterBinder(NettyShuffleEnvironment environment, MeterRegistry registry) {
        this.environment = environment;
        this.registry = registry;
        this.environmentTags = Tags.of("environment", environment.resourceId().value());
    }

    /**
     * Registers the environment's meters in {@code registry} and follows its writers and gates.
     *
     * @param environment an environment of {@link NettyShuffleServiceFactory}
     * @param registry    where the meters go
     * @return the binding; {@link #close()} removes every meter it registered
     * @throws IllegalArgumentException when {@code environment} is not one of this library's
     */
    public static SluiceMeterBinder bind(ShuffleEnvironment environment, MeterRegistry registry) {
        if (!(environment instanceof NettyShuffleEnvironment netty)) {
            throw new IllegalArgumentException("SluiceMeterBinder binds environments made by "
                    + NettyShuffleServiceFactory.class.getName() + "; got " + environment.getClass().getName());
        }
        SluiceMeterBinder binder = new SluiceMeterBinder(netty, registry);
        binder.registerEnvironmentMeters();
        for (Object alive : netty.addListener(binder.listener)) {
            if (alive instanceof ResultPartitionWriter writer) {
                binder.addWriter(writer);
            } else {
                binder.addGate((InputGate) alive);
            }
        }
        return binder;
    }

    private void registerEnvironmentMeters() {
        List<Meter> meters = new ArrayList<>();
        meters.add(gauge("sluice.memory.segments.total", environment, e -> e.metrics().totalSegments(),
                environmentTags, "memory segments of the environment", null));
        meters.add(gauge("sluice.memory.segments.available", environment, e -> e.metrics().availableSegments(),
                environmentTags, "memory segments held by no pool or buffer", null));
        meters.add(gauge("sluice.memory.usage", environment, e -> e.metrics().memoryUsage(), environmentTags,
                "share of the environment's memory in use, 0..1", null));
        meters.add(counter("sluice.transport.bytes.sent", e -> e.metrics().bytesSent(), "bytes",
                "data bytes written to the transport"));
        meters.add(counter("sluice.transport.bytes.received", e -> e.metrics().bytesReceived(), "bytes",
                "data bytes read from the transport"));
        meters.add(counter("sluice.transport.buffers.sent", e -> e.metrics().buffersSent(), "buffers",
                "data buffers written to the transport"));
        meters.add(counter("sluice.transport.buffers.received", e -> e.metrics().buffersReceived(), "buffers",
                "data buffers read from the transport"));
        meters.add(gauge("sluice.connections.open", environment, e -> e.metrics().openConnections(),
                environmentTags, "data connections open now", null));
        synchronized (lock) {
            environmentMeters.addAll(meters);
        }
    }

    private Meter counter(String name, ToDoubleFunction<ShuffleEnvironment> read, String unit, String description) {
        return FunctionCounter.builder(name, (ShuffleEnvironment) environment, read).tags(environmentTags)
                .baseUnit(unit).description(description).register(registry);
    }

    private void addWriter(ResultPartitionWriter writer) {
        if (!reserve(writer)) {
            return;
        }
        Tags tags = environmentTags.and("partition", writer.partitionId().toString(), "owner",
                writer.metrics().ownerName());
        RateSinceLastRead backpressure = new RateSinceLastRead(() -> writer.metrics().backpressuredNanos());
        List<Meter> meters = new ArrayList<>();
        meters.add(FunctionCounter.builder("sluice.writer.bytes.out", writer, w -> w.metrics().bytesOut())
                .tags(tags).baseUnit("bytes").description("bytes written into buffers, framing included")
                .register(registry));
        meters.add(FunctionCounter.builder("sluice.writer.buffers.out", writer, w -> w.metrics().buffersOut())
                .tags(tags).baseUnit("buffers").description("data buffers completed").register(registry));
        meters.add(FunctionCounter.builder("sluice.writer.records.out", writer, w -> w.metrics().recordsOut())
                .tags(tags).baseUnit("records").description("records emitted").register(registry));
        meters.add(FunctionCounter.builder("sluice.writer.backpressured.time", writer,
                        w -> w.metrics().backpressuredNanos() / (double) TimeUnit.MILLISECONDS.toNanos(1))
                .tags(tags).baseUnit("milliseconds")
                .description("time the producer was blocked waiting for a buffer; its rate is ms per second")
                .register(registry));
        meters.add(gauge("sluice.writer.backpressured.time.per.second", backpressure,
                RateSinceLastRead::msPerSecond, tags,
                "ms per second the producer was blocked since the previous read (Flink's backPressuredTimeMsPerSecond)",
                "milliseconds"));
        meters.add(gauge("sluice.writer.output.pool.usage", writer, w -> w.metrics().outputPoolUsage(), tags,
                "buffers of the writer's pool in use divided by its size, 0..1", null));
        meters.add(gauge("sluice.writer.backlog", writer, w -> w.metrics().totalBacklog(), tags,
                "data buffers queued for the consumers, all subpartitions", "buffers"));
        track(writer, meters);
    }

    private void addGate(InputGate gate) {
        if (!reserve(gate)) {
            return;
        }
        Tags tags = environmentTags.and("gate", uniqueGateName(gate));
        List<Meter> meters = new ArrayList<>();
        meters.add(FunctionCounter.builder("sluice.gate.bytes.in", gate, g -> g.metrics().bytesIn())
                .tags(tags).baseUnit("bytes").description("bytes of the buffers and events the consumer took")
                .register(registry));
        meters.add(FunctionCounter.builder("sluice.gate.buffers.in", gate, g -> g.metrics().buffersIn())
                .tags(tags).baseUnit("buffers").description("data buffers the consumer took").register(registry));
        meters.add(FunctionCounter.builder("sluice.gate.waiting.time", gate,
                        g -> g.metrics().waitingForDataNanos() / (double) TimeUnit.MILLISECONDS.toNanos(1))
                .tags(tags).baseUnit("milliseconds").description("time the consumer waited for data")
                .register(registry));
        meters.add(gauge("sluice.gate.queued.buffers", gate, g -> g.metrics().queuedBuffers(), tags,
                "buffers ready for the consumer, not taken yet", "buffers"));
        meters.add(gauge("sluice.gate.exclusive.pool.usage", gate, g -> g.metrics().exclusivePoolUsage(), tags,
                "exclusive buffers of the remote channels holding data, 0..1", null));
        meters.add(gauge("sluice.gate.floating.pool.usage", gate, g -> g.metrics().floatingPoolUsage(), tags,
                "floating buffers of the gate in use, 0..1", null));
        track(gate, meters);
    }

    /** The gate's owner name, with " #2", " #3"... appended while a live gate already has it. */
    private String uniqueGateName(InputGate gate) {
        String ownerName = gate.metrics().ownerName();
        synchronized (lock) {
            String name = ownerName;
            // By equality: the identity map's containsValue compares references.
            for (int n = 2; new HashSet<>(gateNames.values()).contains(name); n++) {
                name = ownerName + " #" + n;
            }
            gateNames.put(gate, name);
            return name;
        }
    }

    private <T> Meter gauge(String name, T state, ToDoubleFunction<T> read, Tags tags, String description,
                            String unit) {
        Gauge.Builder<T> builder = Gauge.builder(name, state, read).tags(tags).description(description)
                .strongReference(true);
        if (unit != null) {
            builder.baseUnit(unit);
        }
        return builder.register(registry);
    }

    /**
     * Claims {@code key} for registration; false when the binding is closed or the key is bound already (a writer
     * or gate created while {@link #bind} listed the live ones is reported twice).
     */
    private boolean reserve(Object key) {
        synchronized (lock) {
            if (closed || metersByWriterOrGate.containsKey(key)) {
                return false;
            }
            metersByWriterOrGate.put(key, List.of());
            return true;
        }
    }

    /** Keeps {@code meters} for {@code key}, or removes them at once when it was removed or closed meanwhile. */
    private void track(Object key, List<Meter> meters) {
        boolean keep;
        synchronized (lock) {
            keep = !closed && metersByWriterOrGate.containsKey(key);
            if (keep) {
                metersByWriterOrGate.put(key, meters);
            }
        }
        if (!keep) {
            meters.forEach(registry::remove);
        }
    }

    private void remove(Object key) {
        List<Meter> meters;
        synchronized (lock) {
            meters = metersByWriterOrGate.remove(key);
            gateNames.remove(key);
        }
        if (meters != null) {
            meters.forEach(registry::remove);
        }
    }

    /** @return the number of writers and gates whose meters are registered now */
    public int boundWritersAndGates() {
        synchronized (lock) {
            return metersByWriterOrGate.size();
        }
    }

    /** Removes every meter this binding registered and stops following the environment; idempotent. */
    @Override
    public void close() {
        List<Meter> toRemove = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            toRemove.addAll(environmentMeters);
            environmentMeters.clear();
            metersByWriterOrGate.values().forEach(toRemove::addAll);
            metersByWriterOrGate.clear();
            gateNames.clear();
        }
        environment.removeListener(listener);
        toRemove.forEach(registry::remove);
    }

    /** What the environment tells the binding. */
    private final class Listener implements EnvironmentListener {

        @Override
        public void writerAdded(ResultPartitionWriter writer) {
            addWriter(writer);
        }

        @Override
        public void writerRemoved(ResultPartitionWriter writer) {
            remove(writer);
        }

        @Override
        public void gateAdded(InputGate gate) {
            addGate(gate);
        }

        @Override
        public void gateRemoved(InputGate gate) {
            remove(gate);
        }

        @Override
        public void environmentClosed() {
            close();
        }
    }
}
