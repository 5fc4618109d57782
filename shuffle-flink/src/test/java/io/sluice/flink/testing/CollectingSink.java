package io.sluice.flink.testing;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A sink that keeps every element it receives in memory under a name, so that the test that ran the job in the
 * same JVM can read them. At-least-once (a restarted job writes its replayed elements again); tests that check
 * exactly-once read keyed state results, not counts of elements. Optionally slow, to backpressure the job.
 * Any thread.
 */
public final class CollectingSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Queue<Object>> RESULTS = new ConcurrentHashMap<>();

    private final String name;
    private final long pauseNanosPerElement;

    private CollectingSink(String name, long pauseNanosPerElement) {
        this.name = name;
        this.pauseNanosPerElement = pauseNanosPerElement;
        RESULTS.put(name, new ConcurrentLinkedQueue<>());
    }

    /** A fast sink collecting under {@code name} (previous results under that name are dropped). */
    public static <T> CollectingSink<T> named(String name) {
        return new CollectingSink<>(name, 0);
    }

    /** A sink that pauses {@code pauseNanos} after each element: it backpressures its upstream. */
    public static <T> CollectingSink<T> slow(String name, long pauseNanos) {
        return new CollectingSink<>(name, pauseNanos);
    }

    /** @return what the sink named {@code name} received so far */
    @SuppressWarnings("unchecked")
    public static <T> List<T> results(String name) {
        List<T> copy = new ArrayList<>();
        for (Object element : RESULTS.getOrDefault(name, new ConcurrentLinkedQueue<>())) {
            copy.add((T) element);
        }
        return copy;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        Queue<Object> target = RESULTS.get(name);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context context) {
                target.add(element);
                if (pauseNanosPerElement > 0) {
                    LockSupport.parkNanos(pauseNanosPerElement);
                }
            }

            @Override
            public void flush(boolean endOfInput) {
            }

            @Override
            public void close() {
            }
        };
    }
}
