package io.sluice.bench.run;

import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shuffle environments of one process, started together and closed together.
 * Created and closed by the main thread; {@link #all()} and metrics may be read by any thread.
 */
public final class Environments implements AutoCloseable {

    /** How often {@link #awaitBuffersReturned} looks again. */
    private static final long POLL_MILLIS = 10;

    private final List<ShuffleEnvironment> environments;

    private Environments(List<ShuffleEnvironment> environments) {
        this.environments = List.copyOf(environments);
    }

    /**
     * Creates and starts one environment per context; when one fails, the ones started are closed.
     *
     * @param factory the shuffle implementation
     * @param contexts one per environment
     * @return the started environments
     * @throws IOException when an environment cannot start
     */
    public static Environments start(ShuffleServiceFactory factory, List<ShuffleEnvironmentContext> contexts)
            throws IOException {
        List<ShuffleEnvironment> started = new ArrayList<>();
        try {
            for (ShuffleEnvironmentContext context : contexts) {
                ShuffleEnvironment environment = factory.createShuffleEnvironment(context);
                started.add(environment);
                environment.start();
            }
        } catch (IOException | RuntimeException e) {
            closeEach(started, e);
            throw e;
        }
        return new Environments(started);
    }

    /** @return environment {@code index}, in the order of the contexts */
    public ShuffleEnvironment get(int index) {
        return environments.get(index);
    }

    /** @return how many there are */
    public int size() {
        return environments.size();
    }

    /** @return every environment, unmodifiable */
    public List<ShuffleEnvironment> all() {
        return environments;
    }

    /**
     * Waits until every environment has all its segments back, as it must once every writer
     * and gate is closed and every partition consumed. Releases may finish on other threads
     * shortly after the last close, hence the grace period.
     *
     * @param grace how long to wait
     * @return the segments still in use after the wait, over every environment; 0 when none leaked
     * @throws InterruptedException when interrupted while waiting
     */
    public int awaitBuffersReturned(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        int inUse = segmentsInUse();
        while (inUse > 0 && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            inUse = segmentsInUse();
        }
        return inUse;
    }

    /**
     * @return per environment, "id: used of total" for the ones with segments in use, for a leak message
     */
    public String describeSegmentsInUse() {
        StringBuilder text = new StringBuilder();
        for (ShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.metrics();
            int used = metrics.totalSegments() - metrics.availableSegments();
            if (used > 0) {
                text.append(text.length() == 0 ? "" : "; ").append(environment.resourceId().value()).append(": ")
                    .append(used).append(" of ").append(metrics.totalSegments()).append(" segments in use");
            }
        }
        return text.toString();
    }

    /** @return network buffers in use now, over every environment; any thread */
    int segmentsInUse() {
        int inUse = 0;
        for (ShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.metrics();
            inUse += metrics.totalSegments() - metrics.availableSegments();
        }
        return inUse;
    }

    /** @return network buffers there are, over every environment; any thread */
    int totalSegments() {
        int total = 0;
        for (ShuffleEnvironment environment : environments) {
            total += environment.metrics().totalSegments();
        }
        return total;
    }

    /** @return open data connections now, over every environment (both ends of one counted twice); any thread */
    int openConnections() {
        int open = 0;
        for (ShuffleEnvironment environment : environments) {
            open += environment.metrics().openConnections();
        }
        return open;
    }

    /** Closes every environment; idempotent like each environment's close. */
    @Override
    public void close() {
        if (closeEach(environments, null) instanceof RuntimeException failure) { // a close throws nothing else
            throw failure;
        }
    }

    /**
     * Closes every environment, whatever the others do: the first failure, {@code failure} when given, keeps the
     * later ones as suppressed.
     *
     * @param failure what already went wrong, or null
     * @return the first failure, or null when there was none
     */
    private static Exception closeEach(List<ShuffleEnvironment> environments, Exception failure) {
        Exception first = failure;
        for (ShuffleEnvironment environment : environments) {
            try {
                environment.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }
}
