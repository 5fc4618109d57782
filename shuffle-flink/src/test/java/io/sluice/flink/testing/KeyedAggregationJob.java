package io.sluice.flink.testing;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keyed job of the Flink tests and of the benchmark: a generated sequence, keyed by {@code value % keys}, summed
 * per key in keyed state (a running count and sum per key, each update emitted), into a sink. Its final per-key
 * aggregates are known in advance ({@link #expected}), whatever the shuffle and however often it restarts from a
 * checkpoint; duplicated or lost state after a restore shows as a wrong count.
 */
public final class KeyedAggregationJob {

    private KeyedAggregationJob() {
    }

    /**
     * Adds the job to {@code env}: source of {@code records} values, then {@code between} (for example a function
     * that fails once), then the keyed aggregate.
     *
     * @return the stream of (key, count so far, sum so far) updates
     */
    public static SingleOutputStreamOperator<Tuple3<Long, Long, Long>> build(StreamExecutionEnvironment env, long records, long keys,
                                                             MapFunction<Long, Long> between) {
        return env.fromSequence(0, records - 1)
                .map(between).name("between")
                .map(new ToKeyed(keys)).name("to-keyed")
                .keyBy(new ByKey())
                .reduce(new Sum()).name("per-key-sum");
    }

    /** The final (count, sum) of each key. */
    public static Map<Long, List<Long>> expected(long records, long keys) {
        Map<Long, List<Long>> result = new HashMap<>();
        long[] counts = new long[(int) keys];
        long[] sums = new long[(int) keys];
        for (long value = 0; value < records; value++) {
            counts[(int) (value % keys)]++;
            sums[(int) (value % keys)] += value;
        }
        for (int key = 0; key < keys; key++) {
            result.put((long) key, List.of(counts[key], sums[key]));
        }
        return result;
    }

    /** The last aggregate of each key among the (at-least-once) updates a sink received: the one with most records. */
    public static Map<Long, List<Long>> finalAggregates(List<Tuple3<Long, Long, Long>> updates) {
        Map<Long, List<Long>> result = new HashMap<>();
        for (Tuple3<Long, Long, Long> update : updates) {
            List<Long> current = result.get(update.f0);
            if (current == null || current.get(0) < update.f1) {
                result.put(update.f0, List.of(update.f1, update.f2));
            }
        }
        return result;
    }

    /** Passes values through unchanged. */
    public static final class Identity implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long value) {
            return value;
        }
    }

    private static final class ToKeyed implements MapFunction<Long, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final long keys;

        ToKeyed(long keys) {
            this.keys = keys;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Long value) {
            return Tuple3.of(value % keys, 1L, value);
        }
    }

    private static final class ByKey implements KeySelector<Tuple3<Long, Long, Long>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Tuple3<Long, Long, Long> value) {
            return value.f0;
        }
    }

    private static final class Sum implements ReduceFunction<Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple3<Long, Long, Long> reduce(Tuple3<Long, Long, Long> a, Tuple3<Long, Long, Long> b) {
            return Tuple3.of(a.f0, a.f1 + b.f1, a.f2 + b.f2);
        }
    }
}
