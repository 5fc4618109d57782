#!/usr/bin/env python3
"""Turns a JMH JSON result file of Sluice's suite into figure lines ("name key=value ..."), named like the
Flink peer's figures so that bench/compare-summary.py can set them side by side.

Usage: jmh-to-lines.py RESULT.json > figures.log
"""
import json
import sys

FULL_BUFFER = 32768  # bytes on the wire per bulk operation: one 32 KiB buffer, as the peer counts


def link_suffix(params):
    link = params.get("link", "tcp")
    return "" if link == "tcp" else "." + link


def record_shape_suffix(params):
    """Non-default record shapes of RecordThroughputBenchmark, e.g. '.seq.union' or '.direct.seq.union'."""
    suffix = ""
    if params.get("recordBuffer", "heap") != "heap":
        suffix += "." + params["recordBuffer"]
    if params.get("payload", "fixed") == "sequenced":
        suffix += ".seq"
    if params.get("reader", "gate") == "union":
        suffix += ".union"
    return suffix


def lines(results):
    for r in results:
        bench = r["benchmark"].rsplit(".", 2)[-2]
        method = r["benchmark"].rsplit(".", 1)[-1]
        p = r.get("params", {})
        m = r["primaryMetric"]
        score = m["score"]
        link = link_suffix(p)
        if bench == "BulkThroughputBenchmark":
            yield (f"sluice.bulk.{p['channels']}ch{link} GBps={score * FULL_BUFFER / 1e9:.3f} "
                   f"buffers_per_s={score:.0f}")
        elif bench == "RecordThroughputBenchmark":
            size = "long" if p["recordBytes"] == "8" else "b" + p["recordBytes"]
            mbps = score * (int(p["recordBytes"]) + 4) / 1e6  # with the 4-byte length, as the peer counts
            yield (f"sluice.records.{size}.1w.1ch.100ms{record_shape_suffix(p)}{link} "
                   f"records_per_s={score:.0f} MBps={mbps:.1f}")
        elif bench == "ManyChannelsBenchmark":
            yield f"sluice.records.long.{p['shape']}.{p.get('flushMillis', '100')}ms{link} records_per_s={score:.0f}"
        elif bench == "RoundTripLatencyBenchmark":
            # Microseconds per round trip A -> B -> A (two one-way trips and the echo thread's turn-around): a
            # figure of its own, not the one-way sluice.latency.1rec ('sluice-bench latency', the Flink peer's shape).
            q = m["scorePercentiles"]
            yield (f"sluice.latency.rtt.1rec{link} rtt_us_p50={q['50.0']:.1f} rtt_us_p99={q['99.0']:.1f} "
                   f"rtt_us_p999={q['99.9']:.1f} half_rtt_us_p50={q['50.0'] / 2:.1f}")
        elif bench == "SteadyStateAllocationBenchmark":
            line = f"sluice.alloc.{method}{link} ops_per_s={score:.0f}"
            norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
            if norm:
                line += f" bytes_per_op={norm['score']:.3f}"
            yield line


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        for line in lines(json.load(f)):
            print(line)
