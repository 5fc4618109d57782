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
import io.sluice.tests.support.Wiring;
import io.sluice.netty.NettyShuffleEnvironmentBuilder;
import io.sluice.netty.NettyShuffleServiceFactory;
import io.sluice.tests.support.RecordVerificationException;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs one seed: builds the scenario's environments (each with a {@link ChaosPipelineHook}), registers one
 * partition per producer, sets up every writer and gate, runs each producer and consumer on its own thread with a
 * deadline while the faults fire, then closes everything and judges: every consumer read everything intact or
 * failed with a documented exception that a fault which hit explains; no task still running at the deadline (its
 * stack is reported); every environment got every segment back. Netty's leak detector is the caller's part (it needs
 * a garbage collection). One thread: create, {@link #execute()}, discard.
 */
public final class ChaosRun {

    /** A task still running this long after the start is stuck: a seed normally takes a fraction of a second. */
    public static final Duration TASK_DEADLINE = Duration.ofSeconds(30);
    /** How long an environment may take, after its close, to get back the segments still travelling. */
    private static final Duration MEMORY_RETURN_TIMEOUT = Duration.ofSeconds(10);

    private final ChaosScenario scenario;
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<Throwable> faultErrors = Collections.synchronizedList(new ArrayList<>());
    private final List<ShuffleEnvironment> environments = new ArrayList<>();
    private final int[] ports;

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
        List<InputGate> gates = new ArrayList<>();
        try {
            startEnvironments(actions);
            List<ShuffleDescriptor> partitions = new ArrayList<>();
            for (int p = 0; p < scenario.producers(); p++) {
                ShuffleEnvironment env = environments.get(scenario.producerEnvironment()[p]);
                partitions.add(Wiring.register(master, ResultPartitionId.random(), scenario.consumers(),
                        new ProducerDescriptor(env.resourceId(), env.dataAddress())));
            }
            for (int p = 0; p < scenario.producers(); p++) {
                ResultPartitionWriter writer = Wiring.writer(environments.get(scenario.producerEnvironment()[p]),
                        "producer " + p, partitions.get(p), scenario.consumers());
                writers.add(writer);
                writer.setup();
                writer.onTaskEvent(new TaskEventCheck(p, scenario.consumers(), problems));
            }
            for (int c = 0; c < scenario.consumers(); c++) {
                InputGate gate = Wiring.gate(environments.get(scenario.consumerEnvironment()[c]), "consumer " + c, c,
                        partitions);
                gates.add(gate);
                gate.setup();
            }
            runTasks(actions, writers, gates, outcome);
        } catch (Exception e) {
            problems.add("the job could not be set up (before any fault): " + stackOf(e));
        } finally {
            closeAll(writers, gates, master);
        }
        awaitFaultThreads(actions);
        checkMemory();
        for (Throwable error : faultErrors) {
            problems.add(stackOf(error));
        }
        return new ChaosResult(scenario, List.copyOf(problems), List.copyOf(actions.firedFaults()), outcome,
                System.nanoTime() - start);
    }

    private void startEnvironments(FaultActions actions) throws Exception {
        for (int i = 0; i < scenario.environments(); i++) {
            ShuffleEnvironmentContext context = ShuffleEnvironmentContext.of(scenario.config(i),
                    new ResourceId("chaos-" + scenario.seed() + "-env-" + i));
            ShuffleEnvironment env = new NettyShuffleEnvironmentBuilder(context)
                    .pipelineHook(new ChaosPipelineHook(scenario.faults(), i, this::environmentAt, actions::fired))
                    .build();
            environments.add(env);
            ports[i] = env.start();
        }
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

    private void runTasks(FaultActions actions, List<ResultPartitionWriter> writers, List<InputGate> gates,
                          List<TaskOutcome> outcome) throws InterruptedException {
        List<TaskThread> tasks = new ArrayList<>();
        List<ChaosProducer> producers = new ArrayList<>();
        List<ChaosConsumer> consumers = new ArrayList<>();
        for (int p = 0; p < scenario.producers(); p++) {
            ChaosProducer producer = new ChaosProducer(p, scenario, writers.get(p), actions);
            producers.add(producer);
            tasks.add(new TaskThread("producer " + p, scenario.seed(), () -> {
                producer.run();
                return null;
            }));
        }
        for (int c = 0; c < scenario.consumers(); c++) {
            ChaosConsumer consumer = new ChaosConsumer(c, scenario, gates.get(c), actions);
            consumers.add(consumer);
            tasks.add(new TaskThread("consumer " + c, scenario.seed(), () -> {
                consumer.run();
                return null;
            }));
        }
        for (TaskThread task : tasks) {
            task.start();
        }
        long deadline = System.nanoTime() + TASK_DEADLINE.toNanos();
        List<TaskThread> stuck = new ArrayList<>();
        for (TaskThread task : tasks) {
            if (!task.awaitUntil(deadline)) {
                stuck.add(task);
            }
        }
        for (TaskThread task : stuck) {
            problems.add(task.name() + " was still running " + TASK_DEADLINE.toSeconds() + " s after the start: "
                    + task.stack());
        }
        if (!stuck.isEmpty()) {
            // Unblock them so the memory check can run: closing the environments releases writers and gates.
            for (ShuffleEnvironment env : environments) {
                env.close();
            }
            for (TaskThread task : stuck) {
                task.interrupt();
            }
        }
        judge(tasks, producers, consumers, actions, outcome);
    }

    private void judge(List<TaskThread> tasks, List<ChaosProducer> producers, List<ChaosConsumer> consumers,
                       FaultActions actions, List<TaskOutcome> outcome) {
        Set<Fault> fired = actions.firedFaults();
        ExpectedFailures expected = new ExpectedFailures(scenario, fired);
        for (int i = 0; i < tasks.size(); i++) {
            TaskThread task = tasks.get(i);
            boolean producer = i < producers.size();
            int index = producer ? i : i - producers.size();
            long count = producer ? producers.get(index).emitted() : consumers.get(index).read();
            Throwable error = task.error();
            outcome.add(new TaskOutcome(task.name(), task.ended(), error, count));
            if (!task.ended() || error == null) {
                continue;
            }
            if (error instanceof RecordVerificationException) {
                problems.add("WRONG DATA at " + task.name() + ": " + error.getMessage());
                continue;
            }
            String explanation = producer ? expected.producerExplanation(index, error)
                    : expected.consumerExplanation(index, error);
            if (explanation == null) {
                problems.add(task.name() + " failed with " + error.getClass().getName()
                        + ", which no fault that hit explains (faults that hit: " + fired + "): " + stackOf(error));
            }
        }
    }

    private void closeAll(List<ResultPartitionWriter> writers, List<InputGate> gates, ShuffleMaster master) {
        for (InputGate gate : gates) {
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
