package io.sluice.tests.support;

import io.sluice.testing.BackgroundTask;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;

import io.sluice.netty.NettyShuffleEnvironmentBuilder;
import io.sluice.netty.transport.ChannelPipelineHook;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The shuffle of one integration test, built only through the public API: the environments of a {@link Layout}
 * (loaded with {@link ShuffleServiceLoader}), a shuffle master that registers partitions, and the writers, gates,
 * record readers and task threads the test makes through it. {@link #close()} closes all of them and then checks
 * that every environment got all of its memory back ({@code availableSegments == totalSegments}); a test that
 * passes but leaks a buffer fails there.
 *
 * <pre>{@code
 * try (ShuffleFixture shuffle = ShuffleFixture.start(layout, config)) {
 *     RegisteredPartition partition = shuffle.registerPartition(2);
 *     ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
 *     InputGate gate = shuffle.createGate("consumer 0", 0, partition);
 *     ...
 * }
 * }</pre>
 *
 * <p>Producers run in the layout's first environment and consumers in its last (the same one in
 * {@link Layout#ONE_ENVIRONMENT}); {@link #start(Transport, ShuffleConfig)} makes two environments connected by a
 * transport instead, for the remote path. Threads: built and closed by the test's thread; writers, gates and readers are
 * then used by the threads the test hands them to; {@link #fork} may be called from any thread.
 */
public final class ShuffleFixture implements AutoCloseable {

    /** How long a task may take to end once its writers and gates are closed, before it counts as stuck. */
    private static final Duration TASK_STOP_TIMEOUT = Duration.ofSeconds(10);
    /** How long registering a partition may take: the master answers at once here, a remote one may not. */
    private static final Duration REGISTRATION_TIMEOUT = Duration.ofSeconds(10);

    private final ShuffleConfig config;
    private final ShuffleMaster master;
    private final List<ShuffleEnvironment> environments;

    private final Object lock = new Object();
    private final List<ResultPartitionWriter> writers = new ArrayList<>(); // guarded by lock
    private final List<InputGate> gates = new ArrayList<>(); // guarded by lock
    private final List<RecordReader> readers = new ArrayList<>(); // guarded by lock
    private final List<BackgroundTask<?>> tasks = new ArrayList<>(); // guarded by lock
    private boolean closed; // guarded by lock

    private ShuffleFixture(ShuffleConfig config, ShuffleMaster master, List<ShuffleEnvironment> environments) {
        this.config = config;
        this.master = master;
        this.environments = List.copyOf(environments);
    }

    /**
     * Loads the shuffle service named by the configuration, creates and starts the layout's environments, and a
     * shuffle master.
     *
     * @param layout where producers and consumers run
     * @param config every environment's configuration (the layout may add its transport)
     * @return the fixture; close it
     * @throws IOException when the service cannot be loaded or an environment cannot start
     * @throws IllegalArgumentException when {@code createShuffleEnvironment} rejects the configuration
     */
    public static ShuffleFixture start(Layout layout, ShuffleConfig config) throws IOException {
        ShuffleConfig effective = layout.configure(config);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(effective);
        return start(effective, layout.environments(), resourceId -> layout.context(effective, resourceId),
                factory::createShuffleEnvironment);
    }

    /**
     * Two environments connected by a transport, each with its own data server bound to loopback: producers in the
     * first ({@code env-0}), consumers in the second ({@code env-1}), so every channel is remote.
     *
     * @param transport what the environments talk over
     * @param config both environments' configuration ({@code shuffle.netty.transport} is set to the transport's)
     * @return the fixture; close it
     * @throws IOException when the service cannot be loaded or an environment cannot start
     */
    public static ShuffleFixture start(Transport transport, ShuffleConfig config) throws IOException {
        return start(transport, 2, config);
    }

    /**
     * Like {@link #start(Transport, ShuffleConfig)} with any number of environments; with one, its producers are
     * elsewhere (another process) and reached through descriptors the test makes into {@link RegisteredPartition}s.
     *
     * @param transport what the environments talk over
     * @param environments how many to start, named {@code env-0}, {@code env-1}, ...
     * @param config every environment's configuration ({@code shuffle.netty.transport} is set to the transport's)
     * @return the fixture; close it
     * @throws IOException when the service cannot be loaded or an environment cannot start
     */
    public static ShuffleFixture start(Transport transport, int environments, ShuffleConfig config)
            throws IOException {
        ShuffleConfig effective = transport.configure(config);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(effective);
        return start(effective, environments, resourceId -> ShuffleEnvironmentContext.of(effective, resourceId),
                factory::createShuffleEnvironment);
    }

    /**
     * Like {@link #start(Transport, ShuffleConfig)}, with a {@link ChannelPipelineHook} that sees every channel of
     * both environments' transports (to measure or disturb them).
     */
    public static ShuffleFixture start(Transport transport, ShuffleConfig config, ChannelPipelineHook hook)
            throws IOException {
        ShuffleConfig effective = transport.configure(config);
        return start(effective, 2, resourceId -> ShuffleEnvironmentContext.of(effective, resourceId),
                context -> new NettyShuffleEnvironmentBuilder(context).pipelineHook(hook).build());
    }

    private static ShuffleFixture start(ShuffleConfig effective, int environments,
                                        Function<ResourceId, ShuffleEnvironmentContext> contextOf,
                                        Function<ShuffleEnvironmentContext, ShuffleEnvironment> create)
            throws IOException {
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(effective);
        List<ShuffleEnvironment> created = new ArrayList<>(environments);
        ShuffleMaster master = factory.createShuffleMaster(effective);
        try {
            for (int i = 0; i < environments; i++) {
                ShuffleEnvironment environment = create.apply(contextOf.apply(new ResourceId("env-" + i)));
                created.add(environment);
                environment.start();
            }
        } catch (IOException | RuntimeException e) {
            for (ShuffleEnvironment environment : created) {
                environment.close();
            }
            master.close();
            throw e;
        }
        return new ShuffleFixture(effective, master, created);
    }

    /** @return the configuration every environment got */
    public ShuffleConfig config() {
        return config;
    }

    /** @return the shuffle master that registered the partitions (made with the environments' configuration) */
    public ShuffleMaster master() {
        return master;
    }

    /** @return every environment of the layout, producers' first */
    public List<ShuffleEnvironment> environments() {
        return environments;
    }

    /** @return where writers are created */
    public ShuffleEnvironment producerEnvironment() {
        return environments.get(0);
    }

    /** @return where gates are created */
    public ShuffleEnvironment consumerEnvironment() {
        return environments.get(environments.size() - 1);
    }

    /**
     * Registers a new pipelined partition produced in the {@link #producerEnvironment()}.
     *
     * @param numberOfSubpartitions one per consumer
     * @return its descriptor, for {@link #createWriter} and {@link #createGate}
     */
    public RegisteredPartition registerPartition(int numberOfSubpartitions) throws Exception {
        return registerPartition(numberOfSubpartitions, 0);
    }

    /**
     * Registers a new pipelined partition produced in the {@link #producerEnvironment()}, read over the given
     * connection: remote channels to the same producer and connection index share one connection.
     *
     * @param numberOfSubpartitions one per consumer
     * @param connectionIndex which of the connections to the producer its remote consumers use
     * @return its descriptor, for {@link #createWriter} and {@link #createGate}
     */
    public RegisteredPartition registerPartition(int numberOfSubpartitions, int connectionIndex) throws Exception {
        return registerPartition(PartitionType.PIPELINED_BOUNDED, numberOfSubpartitions, connectionIndex);
    }

    /**
     * Registers a new partition of the given type produced in the {@link #producerEnvironment()}.
     *
     * @param type pipelined or blocking
     * @param numberOfSubpartitions one per consumer
     * @param connectionIndex which of the connections to the producer its remote consumers use
     * @return its descriptor, for {@link #createWriter} and {@link #createGate}
     */
    public RegisteredPartition registerPartition(PartitionType type, int numberOfSubpartitions, int connectionIndex)
            throws Exception {
        return registerPartition(type, numberOfSubpartitions, connectionIndex, producerEnvironment().dataAddress());
    }

    /**
     * Registers a new pipelined partition produced in the {@link #producerEnvironment()} whose consumers reach it at
     * {@code dataAddress} instead of the environment's own (e.g. a proxy in front of it).
     *
     * @param numberOfSubpartitions one per consumer
     * @param connectionIndex which of the connections to the producer its remote consumers use
     * @param dataAddress where consumers connect to
     * @return its descriptor, for {@link #createWriter} and {@link #createGate}
     */
    public RegisteredPartition registerPartition(int numberOfSubpartitions, int connectionIndex,
                                                 InetSocketAddress dataAddress) throws Exception {
        return registerPartition(PartitionType.PIPELINED_BOUNDED, numberOfSubpartitions, connectionIndex, dataAddress);
    }

    private RegisteredPartition registerPartition(PartitionType type, int numberOfSubpartitions, int connectionIndex,
                                                  InetSocketAddress dataAddress) throws Exception {
        ShuffleEnvironment producer = producerEnvironment();
        PartitionDescriptor partition = new PartitionDescriptor(ResultPartitionId.random(), type,
                numberOfSubpartitions, connectionIndex);
        ShuffleDescriptor descriptor;
        try {
            descriptor = master.registerPartitionWithProducer(partition,
                            new ProducerDescriptor(producer.resourceId(), dataAddress))
                    .get(REGISTRATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("registering " + partition + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("registering " + partition + " took over " + REGISTRATION_TIMEOUT, e);
        }
        return new RegisteredPartition(descriptor, numberOfSubpartitions, type);
    }

    /**
     * @param ownerName the producing task's name
     * @param partition what to produce
     * @return the writer in the producer environment, not set up; closed with the fixture
     */
    public ResultPartitionWriter createWriter(String ownerName, RegisteredPartition partition) {
        ResultPartitionDeploymentDescriptor descriptor = new ResultPartitionDeploymentDescriptor(
                partition.descriptor(), partition.type(), partition.numberOfSubpartitions());
        ResultPartitionWriter writer = producerEnvironment()
                .createResultPartitionWriters(ownerName, List.of(descriptor)).get(0);
        synchronized (lock) {
            writers.add(writer);
        }
        return writer;
    }

    /**
     * @param ownerName the consuming task's name
     * @param subpartitionIndex the subpartition every channel reads
     * @param channels the partitions to read, channel {@code i} reading {@code channels[i]}
     * @return the gate in the consumer environment, not set up; closed with the fixture
     */
    public InputGate createGate(String ownerName, int subpartitionIndex, RegisteredPartition... channels) {
        List<ShuffleDescriptor> descriptors = new ArrayList<>(channels.length);
        for (RegisteredPartition channel : channels) {
            descriptors.add(channel.descriptor());
        }
        InputGate gate = consumerEnvironment().createInputGates(ownerName,
                List.of(new InputGateDeploymentDescriptor(subpartitionIndex, descriptors))).get(0);
        synchronized (lock) {
            gates.add(gate);
        }
        return gate;
    }

    /**
     * Creates a gate like {@link #createGate}, sets it up (which requests its partitions) and returns a record
     * reader over it.
     *
     * @param ownerName the consuming task's name
     * @param subpartitionIndex the subpartition every channel reads
     * @param channels the partitions to read, channel {@code i} reading {@code channels[i]}
     * @return the reader, closed with the fixture
     * @throws IOException when the gate's setup fails
     */
    public RecordReader setUpReader(String ownerName, int subpartitionIndex, RegisteredPartition... channels)
            throws IOException {
        InputGate gate = createGate(ownerName, subpartitionIndex, channels);
        gate.setup();
        return reader(gate);
    }

    /**
     * @param gate a gate (or union of gates) to read records from; the reader owns it
     * @return the reader, closed with the fixture (before and after the tasks end, so that it recycles the buffers
     *     it still holds)
     */
    public RecordReader reader(InputGate gate) {
        RecordReader reader = new RecordReader(gate);
        synchronized (lock) {
            readers.add(reader);
        }
        return reader;
    }

    /**
     * Runs a producer or consumer on its own thread; the fixture stops it when the test ends.
     *
     * @param name the thread's name
     * @param body what it does
     * @return the running task
     */
    public <T> BackgroundTask<T> fork(String name, Callable<T> body) {
        BackgroundTask<T> task = BackgroundTask.start(name, body);
        synchronized (lock) {
            tasks.add(task);
        }
        return task;
    }

    /**
     * Closes readers, gates and writers (which wakes any task blocked on them), waits for the tasks to end,
     * closes the environments and the master, and then checks every environment's memory.
     *
     * @throws AssertionError when a close failed, a task did not end, or an environment did not get every
     *     segment back; every problem is reported, the first as the error and the rest suppressed
     */
    @Override
    public void close() {
        List<RecordReader> readersToClose;
        List<InputGate> gatesToClose;
        List<ResultPartitionWriter> writersToClose;
        List<BackgroundTask<?>> tasksToStop;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            readersToClose = new ArrayList<>(readers);
            gatesToClose = new ArrayList<>(gates);
            writersToClose = new ArrayList<>(writers);
            tasksToStop = new ArrayList<>(tasks);
        }
        List<Throwable> problems = new ArrayList<>();
        for (RecordReader reader : readersToClose) {
            closeAndRecord(reader::close, "a record reader", problems);
        }
        for (InputGate gate : gatesToClose) {
            closeAndRecord(gate::close, "a gate", problems);
        }
        for (ResultPartitionWriter writer : writersToClose) {
            closeAndRecord(writer::close, "writer of partition " + writer.partitionId(), problems);
        }
        stopTasks(tasksToStop, problems);
        // Again, now that the tasks' threads have ended: a close from this thread leaves a living consumer's held
        // buffers to that consumer (RecordReader.close()), and a task that stopped reading holds up to two.
        for (RecordReader reader : readersToClose) {
            closeAndRecord(reader::close, "a record reader", problems);
        }
        for (ShuffleEnvironment environment : environments) {
            closeAndRecord(environment::close, "environment " + environment.resourceId(), problems);
        }
        closeAndRecord(master::close, "the shuffle master", problems);
        for (ShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.metrics();
            if (metrics.availableSegments() != metrics.totalSegments()) {
                problems.add(new AssertionError("environment " + environment.resourceId() + " leaked "
                        + (metrics.totalSegments() - metrics.availableSegments()) + " of " + metrics.totalSegments()
                        + " segments: availableSegments " + metrics.availableSegments() + " after close"));
            }
        }
        if (!problems.isEmpty()) {
            AssertionError failure = new AssertionError("closing the shuffle fixture: " + problems.get(0).getMessage(),
                    problems.get(0));
            for (Throwable other : problems.subList(1, problems.size())) {
                failure.addSuppressed(other);
            }
            throw failure;
        }
    }

    private static void stopTasks(List<BackgroundTask<?>> tasksToStop, List<Throwable> problems) {
        try {
            for (BackgroundTask<?> task : tasksToStop) {
                AssertionError stuck = task.stop(TASK_STOP_TIMEOUT);
                if (stuck != null) {
                    problems.add(stuck);
                }
            }
        } catch (InterruptedException e) {
            // The environments are still closed and checked; the interrupt is kept for the test runner.
            Thread.currentThread().interrupt();
            problems.add(new AssertionError("interrupted while waiting for the test's tasks to end", e));
        }
    }

    private static void closeAndRecord(Runnable close, String what, List<Throwable> problems) {
        try {
            close.run();
        } catch (RuntimeException e) {
            problems.add(new AssertionError("closing " + what + " failed: " + e, e));
        }
    }
}
