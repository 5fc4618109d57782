package io.sluice.tests.chaos;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.channel.local.LocalAddress;
import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.NettyShuffleEnvironmentBuilder;
import io.sluice.netty.NettyShuffleServiceFactory;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.tests.support.RecordVerificationException;
import io.sluice.tests.support.Wiring;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * Runs one seed: builds the scenario's environments (each with a {@link ChaosPipelineHook} and a temp directory of
 * its own), registers one partition per producer, sets up every writer, runs each producer and consumer on its own
 * thread with a deadline while the faults fire, then closes everything and judges: every consumer read everything
 * intact or failed with a documented exception that a fault which hit explains; no task still running at the
 * deadline (its stack is reported); every environment got every segment back and left no file behind. Netty's leak
 * detector is the caller's part (it needs a garbage collection).
 *
 * <p>With blocking partitions the job runs in two steps, as a batch engine runs stages: the producers of blocking
 * partitions run to their finish; then the at-rest faults damage the finished files; then the pipelined producers
 * start and every consumer sets up its gate, on its own thread, and reads. Without them the gates are set up before
 * any task starts. A large gate's producers run a thread per environment ({@link ManyWritersProducer}).
 * One thread: create, {@link #execute()}, discard.
 */
public final class ChaosRun {

    /** A task still running this long after the start is stuck: a seed normally takes a fraction of a second. */
    public static final Duration TASK_DEADLINE = Duration.ofSeconds(30);
    /**
     * The same for a large gate's job: its thousands of channels, each buffer traced by Netty's paranoid leak
     * detection, take several seconds on an idle machine and many times that beside other work.
     */
    public static final Duration LARGE_GATE_DEADLINE = Duration.ofSeconds(120);
    /**
     * How long the tasks still running may make no progress, once a consumer has failed, before the run fails over:
     * far longer than a running job pauses between records, far shorter than the deadline.
     */
    private static final Duration FAILOVER_AFTER = Duration.ofSeconds(3);
    private static final long PROGRESS_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long an environment may take, after its close, to get back the segments still travelling. */
    private static final Duration MEMORY_RETURN_TIMEOUT = Duration.ofSeconds(10);

    private final ChaosScenario scenario;
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<String> notes = new ArrayList<>();
    private final List<Throwable> faultErrors = Collections.synchronizedList(new ArrayList<>());
    private final List<ShuffleEnvironment> environments = new ArrayList<>();
    private final List<Path> tmpDirs = new ArrayList<>();
    /** Gates are set up by the run's thread, or by consumer threads when partitions are blocking. */
    private final List<InputGate> gates = Collections.synchronizedList(new ArrayList<>());
    private final int[] ports;
    /** The faults that had hit when every task ended or the deadline passed (closes after it may fire more). */
    private Set<Fault> fired = Set.of();
    /** Producers whose partitions the run's failover released (see {@link #startAndAwait}); run thread. */
    private final Set<Integer> orphaned = new HashSet<>();

    /**
     * A task's thread and what it stands for: one or more producers (the indices of the partitions it writes, the
     * first being {@code index}), or one consumer (no partitions).
     */
    private record Task(TaskThread thread, boolean producer, int index, int[] partitions, LongSupplier count) {
    }

    /** @param seed the seed whose scenario to run */
    public ChaosRun(long seed) {
        this.scenario = ChaosScenario.fromSeed(seed);
        this.ports = new int[scenario.environments()];
    }

    /** @return what the run found */
    public ChaosResult execute() {
        long start = System.nanoTime();
        FaultActions actions = new FaultActions(scenario, environments, faultErrors);
        List<TaskOutcome> outcome = new ArrayList<>();
        ShuffleMaster master = new NettyShuffleServiceFactory().createShuffleMaster(scenario.config(0));
        List<ResultPartitionWriter> writers = new ArrayList<>();
        try {
            startEnvironments(actions);
            List<ShuffleDescriptor> partitions = new ArrayList<>();
            for (int p = 0; p < scenario.producers(); p++) {
                ShuffleEnvironment env = environments.get(scenario.producerEnvironment()[p]);
                partitions.add(Wiring.register(master, ResultPartitionId.random(), scenario.partitionTypes()[p],
                        subpartitions(), scenario.connectionIndex(p),
                        new ProducerDescriptor(env.resourceId(), env.dataAddress())));
            }
            for (int p = 0; p < scenario.producers(); p++) {
                ResultPartitionWriter writer = Wiring.writer(environments.get(scenario.producerEnvironment()[p]),
                        "producer " + p, partitions.get(p), scenario.partitionTypes()[p], subpartitions());
                writers.add(writer);
                writer.setup();
                writer.onTaskEvent(new TaskEventCheck(p, scenario.consumers(), problems));
            }
            if (!scenario.anyBlocking()) {
                for (int c = 0; c < scenario.consumers(); c++) {
                    openGate(c, partitions);
                }
            }
            runTasks(actions, writers, partitions, outcome);
        } catch (Exception e) {
            problems.add("the job could not be set up (before any fault): " + stackOf(e));
        } finally {
            closeAll(writers, master);
        }
        awaitFaultThreads(actions);
        checkMemory();
        checkFilesDeleted();
        for (Throwable error : faultErrors) {
            problems.add(stackOf(error));
        }
        return new ChaosResult(scenario, List.copyOf(problems), List.copyOf(fired), outcome, List.copyOf(notes),
                System.nanoTime() - start);
    }

    /** Every producer's partition has a subpartition per consumer. */
    private int subpartitions() {
        return scenario.consumers();
    }

    private void startEnvironments(FaultActions actions) throws Exception {
        for (int i = 0; i < scenario.environments(); i++) {
            // A directory of its own per environment and seed, so the run finds a partition's files and sees what
            // the environment's close leaves behind.
            Path tmpDir = Files.createTempDirectory("sluice-chaos-" + scenario.seed() + "-env-" + i + "-");
            tmpDirs.add(tmpDir);
            ShuffleEnvironmentContext context = ShuffleEnvironmentContext.of(
                    scenario.config(i).with(ShuffleOptions.TMP_DIRS, tmpDir.toString()),
                    new ResourceId("chaos-" + scenario.seed() + "-env-" + i));
            ShuffleEnvironment env = new NettyShuffleEnvironmentBuilder(context)
                    .pipelineHook(new ChaosPipelineHook(scenario.faults(), i, this::environmentAt, actions::fired))
                    .build();
            environments.add(env);
            ports[i] = env.start();
        }
    }

    /** Creates consumer {@code c}'s gate and sets it up; on the run's thread, or on the consumer's own. */
    private InputGate openGate(int c, List<ShuffleDescriptor> partitions) throws IOException {
        InputGate gate = Wiring.gate(environments.get(scenario.consumerEnvironment()[c]), "consumer " + c, c,
                partitions);
        gates.add(gate);
        gate.setup();
        return gate;
    }

    /** The environment whose data server is at {@code address} (TCP: its port; local: the port its name ends in). */
    private int environmentAt(SocketAddress address) {
        int port = -1;
        if (address instanceof InetSocketAddress inet) {
            port = inet.getPort();
        } else if (address instanceof LocalAddress local) {
            String id = local.id();
            port = Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
        }
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port) {
                return i;
            }
        }
        return -1;
    }

    private void runTasks(FaultActions actions, List<ResultPartitionWriter> writers,
                          List<ShuffleDescriptor> partitions, List<TaskOutcome> outcome) throws InterruptedException {
        List<Task> finishFirst = new ArrayList<>();
        List<Task> then = new ArrayList<>();
        if (scenario.largeGate()) {
            for (int env = 0; env < scenario.environments(); env++) {
                int[] mine = producersOn(env);
                if (mine.length > 0) {
                    ManyWritersProducer producer = new ManyWritersProducer(scenario, mine, writers);
                    String name = "producers on env-" + env + " (" + mine.length + " of them)";
                    then.add(new Task(new TaskThread(name, scenario.seed(), () -> {
                        producer.run();
                        return null;
                    }), true, mine[0], mine, producer::emitted));
                }
            }
        } else {
            for (int p = 0; p < scenario.producers(); p++) {
                ChaosProducer producer = new ChaosProducer(p, scenario, writers.get(p), actions);
                Task task = new Task(new TaskThread("producer " + p, scenario.seed(), () -> {
                    producer.run();
                    return null;
                }), true, p, new int[] {p}, producer::emitted);
                (scenario.blocking(p) ? finishFirst : then).add(task);
            }
        }
        for (int c = 0; c < scenario.consumers(); c++) {
            int consumerIndex = c;
            ChaosConsumer.GateSource gate;
            if (scenario.anyBlocking()) {
                gate = () -> {
                    actions.beforeGateSetup(consumerIndex);
                    return openGate(consumerIndex, partitions);
                };
            } else {
                InputGate setUp = gates.get(c);
                gate = () -> setUp;
            }
            ChaosConsumer consumer = new ChaosConsumer(c, scenario, gate, actions);
            then.add(new Task(new TaskThread("consumer " + c, scenario.seed(), () -> {
                consumer.run();
                return null;
            }), false, c, new int[0], consumer::read));
        }
        Duration allowed = scenario.largeGate() ? LARGE_GATE_DEADLINE : TASK_DEADLINE;
        long deadline = System.nanoTime() + allowed.toNanos();
        List<Task> tasks = new ArrayList<>(finishFirst);
        tasks.addAll(then);
        List<Task> stuck = new ArrayList<>();
        if (!finishFirst.isEmpty()) {
            startAndAwait(finishFirst, deadline, stuck, writers);
            damageAtRest(actions, writers);
        }
        startAndAwait(then, deadline, stuck, writers);
        fired = actions.firedFaults();
        for (Task task : stuck) {
            problems.add(task.thread().name() + " was still running " + allowed.toSeconds()
                    + " s after the start: " + task.thread().stack());
        }
        if (!stuck.isEmpty()) {
            // Unblock them so the memory check can run: closing the environments releases writers and gates.
            for (ShuffleEnvironment env : environments) {
                env.close();
            }
            for (Task task : stuck) {
                task.thread().interrupt();
            }
        }
        judge(tasks, writers, outcome);
    }

    private int[] producersOn(int env) {
        int count = 0;
        for (int p = 0; p < scenario.producers(); p++) {
            if (scenario.producerEnvironment()[p] == env) {
                count++;
            }
        }
        int[] mine = new int[count];
        int i = 0;
        for (int p = 0; p < scenario.producers(); p++) {
            if (scenario.producerEnvironment()[p] == env) {
                mine[i++] = p;
            }
        }
        return mine;
    }

    /**
     * Starts the tasks and waits for them until the deadline, failing over as an engine would: once a consumer has
     * failed, a pipelined producer may wait for ever for a reader that will never come (a consumer that failed before
     * it asked for its subpartition), and consumers still reading wait for that producer. So when a consumer has
     * failed and either every consumer has ended or no task made progress (records emitted or read, tasks ended)
     * for {@link #FAILOVER_AFTER}, the partitions of the producers still running are released, as an engine cancels
     * the producers of a failed region; their failures, and those of consumers that read those partitions, are put
     * down to that.
     */
    private void startAndAwait(List<Task> tasks, long deadline, List<Task> stuck, List<ResultPartitionWriter> writers)
            throws InterruptedException {
        for (Task task : tasks) {
            task.thread().start();
        }
        long progress = -1;
        long quietSince = System.nanoTime();
        boolean failedOver = false;
        Task running = firstRunning(tasks);
        while (running != null && System.nanoTime() - deadline < 0) {
            running.thread().awaitUntil(Math.min(deadline, System.nanoTime() + PROGRESS_CHECK_NANOS));
            long now = System.nanoTime();
            long done = progress(tasks);
            if (done != progress) {
                progress = done;
                quietSince = now;
            }
            if (!failedOver && consumerFailed(tasks)
                    && (consumersEnded(tasks) || now - quietSince >= FAILOVER_AFTER.toNanos())) {
                failedOver = true;
                for (Task task : tasks) {
                    if (task.producer() && !task.thread().ended()) {
                        releaseOrphaned(task, writers);
                    }
                }
            }
            running = firstRunning(tasks);
        }
        for (Task task : tasks) {
            if (!task.thread().ended()) {
                stuck.add(task);
            }
        }
    }

    private static Task firstRunning(List<Task> tasks) {
        for (Task task : tasks) {
            if (!task.thread().ended()) {
                return task;
            }
        }
        return null;
    }

    /** Records emitted and read so far, plus the tasks that ended: it changes while the job makes progress. */
    private static long progress(List<Task> tasks) {
        long sum = 0;
        for (Task task : tasks) {
            sum += task.count().getAsLong() + (task.thread().ended() ? 1 : 0);
        }
        return sum;
    }

    private static boolean consumerFailed(List<Task> tasks) {
        for (Task task : tasks) {
            if (!task.producer() && task.thread().ended() && task.thread().error() != null) {
                return true;
            }
        }
        return false;
    }

    private static boolean consumersEnded(List<Task> tasks) {
        for (Task task : tasks) {
            if (!task.producer() && !task.thread().ended()) {
                return false;
            }
        }
        return true;
    }

    /** Releases the partitions of a producer task that nobody will read any more, as an engine's failover does. */
    private void releaseOrphaned(Task task, List<ResultPartitionWriter> writers) {
        for (int p : task.partitions()) {
            orphaned.add(p);
            ShuffleEnvironment env = environments.get(scenario.producerEnvironment()[p]);
            env.releasePartitionsLocally(List.of(writers.get(p).partitionId()));
        }
        notes.add(task.thread().name() + ": partitions released by the run's failover after a consumer failed");
    }

    /**
     * Applies the at-rest faults to the files of the blocking partitions, which have finished (or failed) and which
     * nobody has asked for yet. A fault whose partition has no files (its producer failed, its environment closed)
     * or whose file offered nothing to damage did not hit.
     */
    private void damageAtRest(FaultActions actions, List<ResultPartitionWriter> writers) {
        for (Fault fault : scenario.faults()) {
            if (!fault.kind().atRest()) {
                continue;
            }
            Path dir = tmpDirs.get(scenario.producerEnvironment()[fault.actor()]);
            String id = writers.get(fault.actor()).partitionId().toString();
            try {
                Path data = findFile(dir, id + ".data");
                Path index = findFile(dir, id + ".index");
                String done = data == null || index == null ? null : CorruptionAtRest.apply(fault, data, index);
                if (done != null) {
                    actions.fired(fault);
                    notes.add(fault + ": " + done);
                }
            } catch (NoSuchFileException e) {
                // Released meanwhile (its environment closing): nothing to damage.
            } catch (IOException | RuntimeException e) {
                problems.add("the harness could not apply " + fault + " to partition " + id + " in " + dir + ": "
                        + stackOf(e));
            }
        }
    }

    /** @return the file named {@code name} anywhere under {@code dir}, or null */
    private static Path findFile(Path dir, String name) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(file -> file.getFileName().toString().equals(name)).findFirst().orElse(null);
        } catch (UncheckedIOException e) {
            // The walk met a file deleted under it (the environment closing): the same as missing from the start.
            throw e.getCause();
        }
    }

    private void judge(List<Task> tasks, List<ResultPartitionWriter> writers, List<TaskOutcome> outcome) {
        List<ResultPartitionId> partitionIds = new ArrayList<>();
        for (ResultPartitionWriter writer : writers) {
            partitionIds.add(writer.partitionId());
        }
        ExpectedFailures expected = new ExpectedFailures(scenario, fired, partitionIds, Set.copyOf(orphaned));
        for (Task task : tasks) {
            TaskThread thread = task.thread();
            Throwable error = thread.error();
            outcome.add(new TaskOutcome(thread.name(), thread.ended(), error, task.count().getAsLong()));
            if (!thread.ended() || error == null) {
                continue;
            }
            if (error instanceof RecordVerificationException) {
                problems.add("WRONG DATA at " + thread.name() + ": " + error.getMessage());
                continue;
            }
            String explanation = task.producer() ? expected.producerExplanation(task.index(), error)
                    : expected.consumerExplanation(task.index(), error);
            if (explanation == null) {
                problems.add(thread.name() + " failed with " + error.getClass().getName()
                        + ", which no fault that hit explains (faults that hit: " + fired + "): " + stackOf(error));
            }
        }
    }

    private void closeAll(List<ResultPartitionWriter> writers, ShuffleMaster master) {
        List<InputGate> setUp;
        synchronized (gates) {
            setUp = new ArrayList<>(gates);
        }
        for (InputGate gate : setUp) {
            closeQuietly("a gate", gate);
        }
        for (ResultPartitionWriter writer : writers) {
            closeQuietly("a writer", writer);
        }
        for (ShuffleEnvironment env : environments) {
            closeQuietly(env.toString(), env);
        }
        master.close();
    }

    private void closeQuietly(String what, AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            problems.add("closing " + what + " threw: " + stackOf(e));
        }
    }

    private void awaitFaultThreads(FaultActions actions) {
        for (Thread thread : actions.faultThreads()) {
            try {
                thread.join(MEMORY_RETURN_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (thread.isAlive()) {
                problems.add(thread.getName() + " was still running after the environments closed");
            }
        }
    }

    private void checkMemory() {
        long deadline = System.nanoTime() + MEMORY_RETURN_TIMEOUT.toNanos();
        for (ShuffleEnvironment env : environments) {
            ShuffleMetrics metrics = env.metrics();
            while (metrics.availableSegments() != metrics.totalSegments() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                metrics = env.metrics();
            }
            if (metrics.availableSegments() != metrics.totalSegments()) {
                problems.add(env + " got back only " + metrics.availableSegments() + " of "
                        + metrics.totalSegments() + " segments within " + MEMORY_RETURN_TIMEOUT.toSeconds()
                        + " s of its close");
            }
        }
    }

    /**
     * A closed environment deletes its directory with everything in it: a file still there outlived its
     * environment. Then removes the run's temp directories.
     */
    private void checkFilesDeleted() {
        for (int i = 0; i < tmpDirs.size(); i++) {
            Path dir = tmpDirs.get(i);
            try (Stream<Path> files = Files.walk(dir)) {
                List<Path> left = files.filter(Files::isRegularFile).toList();
                if (!left.isEmpty()) {
                    problems.add("env-" + i + " left " + left.size() + " file(s) behind after its close: " + left);
                }
            } catch (IOException e) {
                problems.add("cannot list " + dir + " after the close of env-" + i + ": " + e);
            }
            FileChannelManager.deleteRecursively(dir);
        }
    }

    private static String stackOf(Throwable error) {
        StringWriter text = new StringWriter();
        error.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** Checks the task events one producer receives; runs on transport or consumer threads. */
    private static final class TaskEventCheck implements Consumer<ByteBuffer> {

        private final int producer;
        private final int consumers;
        private final List<String> problems;
        @GuardedBy("this")
        private final int[] next;

        TaskEventCheck(int producer, int consumers, List<String> problems) {
            this.producer = producer;
            this.consumers = consumers;
            this.problems = problems;
            this.next = new int[consumers];
        }

        @Override
        public synchronized void accept(ByteBuffer event) {
            int consumer = ChaosTaskEvent.consumer(event, consumers);
            if (consumer < 0) {
                problems.add("WRONG DATA: producer " + producer + " received a task event of " + event.remaining()
                        + " bytes that no consumer sent");
                return;
            }
            int index = ChaosTaskEvent.index(event);
            if (index != next[consumer]) {
                problems.add("WRONG DATA: producer " + producer + " received task event " + index + " of consumer "
                        + consumer + ", expected " + next[consumer] + " (lost, duplicated or reordered)");
            }
            next[consumer] = index + 1;
        }
    }
}
