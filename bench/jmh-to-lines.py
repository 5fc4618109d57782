#!/usr/bin/env python3
"""Turns a JMH JSON result file of Sluice's suite into figure lines ("name key=value ..."), named like the
Flink peer's figures so that bench/compare-summary.py can set them side by side.

Usage: jmh-to-lines.py RESULT.json [JMH-OUTPUT.txt] > figures.log

With the JMH run's text output, each streaming figure (bulk, records, many channels) also gets the CPU per delivered
unit (record, or buffer for bulk) that the benchmark's teardown printed ("# CPU ns per record over N records: ..."),
as cpu_ns=TOTAL and cpu_ns_ROLE=... by thread role, the keys the Flink peer prints: producer, consumer, server (the
producing side's event loop), client (the consuming side's) and other (everything else: JIT, GC, timers). The
teardown lines come in the order of the trials, which is the order of the results in the JSON file.
"""
import json
import re
import sys

FULL_BUFFER = 32768  # bytes on the wire per bulk operation: one 32 KiB buffer, as the peer counts


def link_suffix(params):
    link = params.get("link", "tcp")
    return "" if link == "tcp" else "." + link


def window_suffix(params):
    """A non-default credit window of BulkThroughputBenchmark, e.g. '.window40-32' for -p window=40/32."""
    window = params.get("window", "defaults")
    return "" if window == "defaults" else ".window" + window.replace("/", "-")


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


STREAMING = ("BulkThroughputBenchmark", "RecordThroughputBenchmark", "ManyChannelsBenchmark")
CPU_LINE = re.compile(r"^# CPU ns per record over \d+ records: ([0-9.]+)(.*)$")
ROLES = (("producer", "jmh-producer"), ("consumer", "jmh-consumer"), ("server", "sluice-server"),
         ("client", "sluice-client"))


def cpu_lines(text_path):
    """The teardown CPU lines of a JMH text output, each as ' cpu_ns=... cpu_ns_producer=... ...'."""
    found = []
    with open(text_path) as f:
        for line in f:
            m = CPU_LINE.match(line.strip())
            if not m:
                continue
            total = float(m.group(1))
            by_role = {role: 0.0 for role, _ in ROLES}
            for part in m.group(2).split(";"):
                name, _, value = part.strip().rpartition(" ")
                if not name:
                    continue
                role = next((r for r, prefix in ROLES if name.startswith(prefix)), None)
                if role:
                    by_role[role] += float(value)
            other = max(0.0, total - sum(by_role.values()))
            found.append(f" cpu_ns={total:.1f}" + "".join(f" cpu_ns_{r}={v:.1f}" for r, v in by_role.items())
                         + f" cpu_ns_other={other:.1f}")
    return found


def lines(results, cpu=None):
    """The figure lines of the results; with cpu (one CPU line per streaming trial), each streaming figure's
    CPU per unit appended. A CPU line count that does not match (a trial that failed) appends none."""
    streaming = [r["benchmark"].rsplit(".", 2)[-2] in STREAMING for r in results]
    if cpu is not None and len(cpu) != sum(streaming):
        print(f"# {len(cpu)} CPU lines for {sum(streaming)} streaming trials: CPU per unit left out", file=sys.stderr)
        cpu = None
    k = 0
    for r, is_streaming in zip(results, streaming):
        line = line_of(r)
        if is_streaming:
            if line is not None and cpu is not None:
                line += cpu[k]
            k += 1
        if line is not None:
            yield line


def line_of(r):
    """The figure line of one JMH result, or None for a benchmark the comparison does not use."""
    bench = r["benchmark"].rsplit(".", 2)[-2]
    method = r["benchmark"].rsplit(".", 1)[-1]
    p = r.get("params", {})
    m = r["primaryMetric"]
    score = m["score"]
    link = link_suffix(p)
    if bench == "BulkThroughputBenchmark":
        return (f"sluice.bulk.{p['channels']}ch{window_suffix(p)}{link} GBps={score * FULL_BUFFER / 1e9:.3f} "
                f"buffers_per_s={score:.0f}")
    elif bench == "RecordThroughputBenchmark":
        size = "long" if p["recordBytes"] == "8" else "b" + p["recordBytes"]
        mbps = score * (int(p["recordBytes"]) + 4) / 1e6  # with the 4-byte length, as the peer counts
        return (f"sluice.records.{size}.1w.1ch.100ms{record_shape_suffix(p)}{link} "
                f"records_per_s={score:.0f} MBps={mbps:.1f}")
    elif bench == "ManyChannelsBenchmark":
        return f"sluice.records.long.{p['shape']}.{p.get('flushMillis', '100')}ms{link} records_per_s={score:.0f}"
    elif bench == "RoundTripLatencyBenchmark":
        # Microseconds per round trip A -> B -> A (two one-way trips and the echo thread's turn-around): a
        # figure of its own, not the one-way sluice.latency.1rec ('sluice-bench latency', the Flink peer's shape).
        q = m["scorePercentiles"]
        return (f"sluice.latency.rtt.1rec{link} rtt_us_p50={q['50.0']:.1f} rtt_us_p99={q['99.0']:.1f} "
                f"rtt_us_p999={q['99.9']:.1f} half_rtt_us_p50={q['50.0'] / 2:.1f}")
    elif bench == "SteadyStateAllocationBenchmark":
        line = f"sluice.alloc.{method}{link} ops_per_s={score:.0f}"
        norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        if norm:
            line += f" bytes_per_op={norm['score']:.3f}"
        return line
    return None


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        results = json.load(f)
    cpu = cpu_lines(sys.argv[2]) if len(sys.argv) > 2 else None
    for line in lines(results, cpu):
        print(line)
