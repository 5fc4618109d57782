package io.sluice.flink.testing;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job with every kind of exchange: a forward edge (unchained), a rebalance, a broadcast, a union of the two (a
 * task with two input gates), a keyBy into event-time tumbling windows driven by watermarks, and a slow sink that
 * backpressures the keyed branch. Event time of a value is the value, in milliseconds.
 */
public final class MixedEdgesJob {

    /** Values of the small broadcast stream: 0..9. */
    public static final long BROADCAST_VALUES = 10;
    /** Window size. */
    public static final long WINDOW_MILLIS = 1000;
    private static final long KEYS = 10;

    private MixedEdgesJob() {
    }

    /**
     * Adds the job: window results go to {@code windowSink}'s name, every keyed element to the slow sink's.
     *
     * @param values values of the main stream
     */
    public static void build(StreamExecutionEnvironment env, long values, String windowSink, String slowSink,
                             long slowSinkPauseNanos) {
        WatermarkStrategy<Long> eventTime = WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofSeconds(1))
                .withTimestampAssigner((value, previous) -> value);
        DataStream<Long> main = env.fromSequence(0, values - 1).assignTimestampsAndWatermarks(eventTime)
                .map(new Identity()).name("forward").disableChaining()
                .rebalance().map(new Identity()).name("rebalanced");
        DataStream<Long> broadcast = env.fromSequence(0, BROADCAST_VALUES - 1).assignTimestampsAndWatermarks(eventTime)
                .broadcast().map(new Identity()).name("broadcasted");
        DataStream<Tuple3<Long, Long, Long>> keyed = main.union(broadcast).map(new ToKeyed()).name("union");
        keyed.keyBy(new ByKey())
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(WINDOW_MILLIS)))
                .reduce(new Sum()).name("windows")
                .sinkTo(CollectingSink.named(windowSink));
        keyed.keyBy(new ByKey()).map(new PassKeyed()).name("keyed")
                .sinkTo(CollectingSink.slow(slowSink, slowSinkPauseNanos));
    }

    /** The window results, as sorted "key,count,sum" lines: main values once each, broadcast values once per task. */
    public static List<String> expectedWindows(long values, int parallelism) {
        Map<String, long[]> windows = new HashMap<>();
        for (long value = 0; value < values; value++) {
            add(windows, value, 1);
        }
        for (long value = 0; value < BROADCAST_VALUES; value++) {
            add(windows, value, parallelism);
        }
        List<String> lines = new ArrayList<>();
        for (long[] window : windows.values()) {
            lines.add(window[0] + "," + window[1] + "," + window[2]);
        }
        Collections.sort(lines);
        return lines;
    }

    /** The same form for what the window sink received. */
    public static List<String> windows(List<Tuple3<Long, Long, Long>> results) {
        List<String> lines = new ArrayList<>();
        for (Tuple3<Long, Long, Long> result : results) {
            lines.add(result.f0 + "," + result.f1 + "," + result.f2);
        }
        Collections.sort(lines);
        return lines;
    }

    private static void add(Map<String, long[]> windows, long value, int times) {
        long key = value % KEYS;
        long window = value / WINDOW_MILLIS;
        long[] aggregate = windows.computeIfAbsent(key + "@" + window, k -> new long[] {key, 0, 0});
        aggregate[1] += times;
        aggregate[2] += value * times;
    }

    private static final class Identity implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long value) {
            return value;
        }
    }

    private static final class ToKeyed implements MapFunction<Long, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple3<Long, Long, Long> map(Long value) {
            return Tuple3.of(value % KEYS, 1L, value);
        }
    }

    private static final class PassKeyed implements MapFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple3<Long, Long, Long> map(Tuple3<Long, Long, Long> value) {
            return value;
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
