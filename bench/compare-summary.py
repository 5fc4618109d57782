#!/usr/bin/env python3
"""Summary of one run of bench/compare-with-flink.sh.

Reads OUT_DIR/round-N/*.log (lines "name key=value ..."; '#' lines are context) and prints, per compared
figure, min/median/max of each side over the rounds, the per-round ratio (both sides of a ratio are measured
in the same round, one right after the other), its min/median/max and spread, and a verdict against the
figure's target ratio (ROWS below) that says "too noisy" when the spread does not allow one.

Usage: compare-summary.py OUT_DIR [NOISE]             the table
       compare-summary.py OUT_DIR [NOISE] --noisy     the figure groups whose ratio spread exceeds NOISE
       compare-summary.py OUT_DIR [NOISE] --svg FILE  an SVG bar chart of the ratios (median bar, min..max
                                                      whisker, target mark), for docs/benchmarks.md
       compare-summary.py --table TABLE --svg FILE    the same chart from a table this script printed earlier
                                                      (when the round logs are gone)
WIDE_WINDOW (environment, 40/32): the window of the compare script's wide-window bulk figure.
CHART_NOTE (environment): a line under the chart's title, e.g. when and on what machine it was measured.
NOISE: the widest ratio spread, (max - min) / median, that still counts as conclusive (default 0.15).
"""
import glob
import os
import re
import statistics
import sys

# The bulk1 group's wide-window Sluice figure: its credit window (max buffers per subpartition / floating per gate).
WIDE_WINDOW = os.environ.get("WIDE_WINDOW", "40/32")
WIDE_BULK = "sluice.bulk.1ch.window" + WIDE_WINDOW.replace("/", "-")

# (what, unit, scale, Sluice figure, other figure, metric, higher is better, target, groups it comes from)
# Both figures of a row are taken from the same round; the groups are the script's figure groups (FIGURES there).
ROWS = [
    ("bulk 32 KiB, 1 channel", "GB/s", 1, "sluice.bulk.1ch", "flink.bulk.1ch", "GBps", True, 1.5, ["bulk1"]),
    (f"bulk 1 ch, Sluice window {WIDE_WINDOW} / Flink", "GB/s", 1, WIDE_BULK, "flink.bulk.1ch", "GBps", True, None,
     ["bulk1"]),
    (f"bulk 1 ch, Sluice window {WIDE_WINDOW} / defaults", "GB/s", 1, WIDE_BULK, "sluice.bulk.1ch", "GBps", True,
     None, ["bulk1"]),
    ("bulk 32 KiB, 4 channels", "GB/s", 1, "sluice.bulk.4ch", "flink.bulk.4ch", "GBps", True, 1.5, ["bulk4"]),
    ("bulk 1 ch / raw Netty NIO", "GB/s", 1, "sluice.bulk.1ch", "netty.nio.discard.32k", "GBps", True, 0.8, ["bulk1"]),
    ("bulk 1 ch / raw Netty epoll", "GB/s", 1, "sluice.bulk.1ch", "netty.epoll.discard.32k", "GBps", True, 0.8,
     ["bulk1"]),
    ("bulk 4 ch / raw Netty epoll", "GB/s", 1, "sluice.bulk.4ch", "netty.epoll.discard.32k", "GBps", True, 0.8,
     ["bulk4", "bulk1"]),
    ("8-byte records, 1 ch (JMH shape)", "M rec/s", 1e-6, "sluice.records.long.1w.1ch.100ms",
     "flink.records.long.1w.1ch.100ms", "records_per_s", True, 1.5, ["long"]),
    ("8-byte records, 1 ch (engine shape)", "M rec/s", 1e-6, "sluice.records.long.1w.1ch.100ms.seq.union",
     "flink.records.long.1w.1ch.100ms", "records_per_s", True, 1.5, ["engine", "long"]),
    ("8-byte, engine shape / Flink emitRecord", "M rec/s", 1e-6, "sluice.records.long.1w.1ch.100ms.seq.union",
     "flink.emit.long.1w.1ch.100ms", "records_per_s", True, None, ["engine"]),
    ("100-byte records, 1 ch", "M rec/s", 1e-6, "sluice.records.b100.1w.1ch.100ms",
     "flink.records.b100.1w.1ch.100ms", "records_per_s", True, 1.5, ["b100"]),
    ("8-byte, 4w x 100 ch (same shape both sides)", "M rec/s", 1e-6, "sluice.records.long.4x100.100ms",
     "flink.records.long.4w.100ch.100ms", "records_per_s", True, 1.25, ["many"]),
    ("8-byte, 100 ch (1x100 / Flink 4w x 100)", "M rec/s", 1e-6, "sluice.records.long.1x100.100ms",
     "flink.records.long.4w.100ch.100ms", "records_per_s", True, None, ["many"]),
    ("8-byte, 100 ch (10x10 / Flink 4w x 100)", "M rec/s", 1e-6, "sluice.records.long.10x10.100ms",
     "flink.records.long.4w.100ch.100ms", "records_per_s", True, None, ["many"]),
    ("8-byte, 1,000 ch / 100 ch (Sluice 1x1000 / 1x100)", "M rec/s", 1e-6, "sluice.records.long.1x1000.100ms",
     "sluice.records.long.1x100.100ms", "records_per_s", True, 0.8, ["many"]),
    ("latency one-way p50, flush 0", "us", 1, "sluice.latency.1rec", "flink.latency.1rec", "one_way_us_p50",
     False, 0.8, ["latency"]),
    ("latency one-way p99, flush 0", "us", 1, "sluice.latency.1rec", "flink.latency.1rec", "p99", False, 1.0,
     ["latency"]),
    ("latency p50, flush 0, consumer spin-wait", "us", 1, "sluice.latency.spin.1rec", "flink.latency.1rec",
     "one_way_us_p50", False, 0.8, ["latency"]),
    ("latency p99, flush 0, consumer spin-wait", "us", 1, "sluice.latency.spin.1rec", "flink.latency.1rec", "p99",
     False, 1.0, ["latency"]),
]

# In-repo Flink peer figure vs the same figure of PEER_DIR/run.sh (lines prefixed "xcheck." by the script).
CROSS_CHECK = [
    ("flink.bulk.1ch", "GBps"), ("flink.bulk.4ch", "GBps"),
    ("flink.records.long.1w.1ch.100ms", "records_per_s"), ("flink.records.b100.1w.1ch.100ms", "records_per_s"),
    ("flink.records.long.4w.100ch.100ms", "records_per_s"),
    ("flink.latency.1rec", "one_way_us_p50"), ("flink.latency.1rec", "p99"),
    ("netty.nio.discard.32k", "GBps"), ("netty.epoll.discard.32k", "GBps"),
]

LINE_VALUE = re.compile(r"([A-Za-z0-9_]+)=([-0-9.eE]+|NaN)$")


def read_rounds(out_dir):
    """{round: {(figure, metric): value}}; a figure measured twice in a round keeps its last value."""
    rounds = {}
    for path in sorted(glob.glob(os.path.join(out_dir, "round-*", "*.log"))):
        number = int(re.search(r"round-(\d+)", path).group(1))
        values = rounds.setdefault(number, {})
        with open(path) as f:
            for line in f:
                parts = line.split()
                if not parts or line.startswith("#") or "." not in parts[0]:
                    continue
                for kv in parts[1:]:
                    m = LINE_VALUE.match(kv)
                    if m and m.group(2) != "NaN":
                        values[(parts[0], m.group(1))] = float(m.group(2))
    return rounds


def stats(xs):
    return (min(xs), statistics.median(xs), max(xs)) if xs else None


def spread(xs):
    lo, med, hi = stats(xs)
    return (hi - lo) / med if med else float("inf")


def row_values(rounds, ours, theirs, metric):
    a, b, ratios = [], [], []
    for values in rounds.values():
        x = values.get((ours, metric))
        y = values.get((theirs, metric))
        if x is not None:
            a.append(x)
        if y is not None:
            b.append(y)
        if x is not None and y:
            ratios.append(x / y)
    return a, b, ratios


def verdict(ratios, higher, target, noise):
    if not ratios:
        return "no data"
    if len(ratios) < 2:
        return "one round: no verdict"
    lo, med, hi = stats(ratios)
    wide = spread(ratios) > noise
    if target is None:
        return "too noisy" if wide else ""
    sign = ">=" if higher else "<="
    ok = (lambda r: r >= target) if higher else (lambda r: r <= target)
    if all(ok(r) for r in ratios):
        return f"{sign} {target:.2f} met"
    if not any(ok(r) for r in ratios):
        return f"{sign} {target:.2f} MISSED"
    if wide:
        return f"{sign} {target:.2f} too noisy to conclude"
    return f"{sign} {target:.2f} {'met' if ok(med) else 'MISSED'} (median; rounds disagree)"


def fmt(s, scale):
    if s is None:
        return f"{'-':>22}"
    lo, med, hi = (v * scale for v in s)
    return f"{med:7.2f} [{lo:6.2f}..{hi:6.2f}]"


def table(out_dir, noise):
    rounds = read_rounds(out_dir)
    print(f"{'figure':<50} {'unit':<8} {'Sluice med [min..max]':>22} {'other med [min..max]':>22} "
          f"{'ratio med [min..max]':>22} {'spread':>7} {'n':>2}  verdict")
    for what, unit, scale, ours, theirs, metric, higher, target, _ in ROWS:
        a, b, ratios = row_values(rounds, ours, theirs, metric)
        if not a and not b:
            continue  # a figure group this run did not select
        rs = stats(ratios)
        sp = f"{spread(ratios) * 100:6.0f}%" if ratios else f"{'-':>7}"
        print(f"{what:<50} {unit:<8} {fmt(stats(a), scale)} {fmt(stats(b), scale)} {fmt(rs, 1)} {sp} "
              f"{len(ratios):>2}  {verdict(ratios, higher, target, noise)}")
    print(f"# ratio = Sluice / other, per round (both measured back to back), then min/median/max over the rounds;"
          f" spread = (max - min) / median of the ratio; conclusive when <= {noise * 100:.0f}% or when every round"
          f" agrees on the verdict. Latency: lower is better.")
    cpu_table(rounds)
    checks = [(f, m) for f, m in CROSS_CHECK if any(("xcheck." + f, m) in v for v in rounds.values())]
    if checks:
        print("# cross-check, Flink side: in-repo bench/flink-peer vs PEER_DIR/run.sh, same rounds")
        print(f"{'figure':<50} {'metric':<15} {'in-repo med [min..max]':>22} {'shared med [min..max]':>22} "
              f"{'in-repo/shared':>14}")
        for figure, metric in checks:
            a, b, _ = row_values(rounds, figure, "xcheck." + figure, metric)
            ratio = f"{statistics.median(a) / statistics.median(b):14.2f}" if a and b else f"{'-':>14}"
            scale, label = (1e-6, "M records/s") if metric == "records_per_s" else (1, metric)
            print(f"{figure:<50} {label:<15} {fmt(stats(a), scale)} {fmt(stats(b), scale)} {ratio}")
    shown = {r[3] for r in ROWS} | {r[4] for r in ROWS}
    others = sorted({f for v in rounds.values() for f, _ in v if f not in shown and not f.startswith("xcheck.")})
    for figure in others:
        metrics = sorted({m for v in rounds.values() for f, m in v if f == figure})
        text = " ".join(
            f"{m}={statistics.median([v[(figure, m)] for v in rounds.values() if (figure, m) in v]):.3f}"
            for m in metrics)
        print(f"# {figure} {text} (median)")


CPU_ROLES = ("producer", "consumer", "server", "client", "other")


def cpu_table(rounds):
    """CPU ns per unit (record; buffer for bulk) by thread role, median over the rounds, for every figure of ROWS
    whose lines carry cpu_ns: where each side's CPU goes, which a throughput ratio alone does not say. On two
    vCPUs, throughput is bounded by 2 CPUs / cpu_ns, and by how evenly the roles can share the two."""
    figures = []
    for row in ROWS:
        for figure in (row[3], row[4]):
            if figure not in figures and any((figure, "cpu_ns") in v for v in rounds.values()):
                figures.append(figure)
    if not figures:
        return
    print("# CPU ns per unit (record; 32 KiB buffer for bulk) by thread role, median over the rounds; server = the"
          " producing side's event loop, client = the consuming side's")
    print(f"{'figure':<50} {'total':>9} " + " ".join(f"{r:>9}" for r in CPU_ROLES) + "  n")
    for figure in figures:
        cells = []
        n = 0
        for key in ("cpu_ns",) + tuple("cpu_ns_" + r for r in CPU_ROLES):
            xs = [v[(figure, key)] for v in rounds.values() if (figure, key) in v]
            n = max(n, len(xs))
            cells.append(f"{statistics.median(xs):9.1f}" if xs else f"{'-':>9}")
        print(f"{figure:<50} " + " ".join(cells) + f" {n:>2}")


def noisy_groups(out_dir, noise):
    rounds = read_rounds(out_dir)
    groups = []
    for _, _, _, ours, theirs, metric, _, _, row_groups in ROWS:
        _, _, ratios = row_values(rounds, ours, theirs, metric)
        if len(ratios) < 2 or spread(ratios) > noise:
            for g in row_groups:
                if g not in groups:
                    groups.append(g)
    print(" ".join(groups))


def svg_escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def chart_rows_from_logs(out_dir, noise):
    """[(what, higher, target, (min, median, max) of the ratio, verdict)] for the rows with ratios; and the rounds."""
    rounds = read_rounds(out_dir)
    rows = []
    for what, unit, scale, ours, theirs, metric, higher, target, _ in ROWS:
        _, _, ratios = row_values(rounds, ours, theirs, metric)
        if ratios:
            rows.append((what, higher, target, stats(ratios), verdict(ratios, higher, target, noise)))
    return rows, f"{len(rounds)} round(s)"


RANGE = re.compile(r"(-?[0-9.]+)\s+\[\s*(-?[0-9.]+)\.\.\s*(-?[0-9.]+)\]")


def chart_rows_from_table(path):
    """The same rows, read back from the table() output saved in a file (ratio = the third med [min..max])."""
    known = {r[0]: r for r in ROWS}
    rows, rounds = [], 0
    with open(path) as f:
        for line in f:
            what = line[:50].strip()
            if what not in known:
                continue
            ranges = RANGE.findall(line)
            if len(ranges) != 3:
                continue
            med, lo, hi = (float(v) for v in ranges[2])
            tail = line[RANGE.search(line, line.rfind("[") - 25).end():].split(None, 2)
            rounds = max(rounds, int(tail[1]) if len(tail) > 1 and tail[1].isdigit() else 0)
            row = known[what]
            rows.append((what, row[6], row[7], (lo, med, hi), tail[2].strip() if len(tail) > 2 else ""))
    return rows, f"up to {rounds} round(s)"


def ratio_chart(rows, rounds_text, note=""):
    """An SVG bar chart, one row per compared figure: the median ratio Sluice / other as a bar (green when it meets
    the target, red when it misses it, grey without a target or verdict), the min..max over the rounds as a whisker,
    the target as a tick, and 1.0 (parity) as a dashed line. Higher ratios are better except for latency rows, whose
    label says "lower is better". Self-contained: no script, no external font or stylesheet."""
    label_w, plot_w, row_h, top, bottom = 330, 420, 24, 46, 48
    width, height = label_w + plot_w + 110, top + row_h * max(len(rows), 1) + bottom
    top_ratio = max([hi for _, _, _, (_, _, hi), _ in rows] + [t or 0 for _, _, t, _, _ in rows] + [1.0])
    scale_max = next(v for v in (0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1e9) if v >= top_ratio)
    x = lambda r: label_w + plot_w * min(r, scale_max) / scale_max
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" role="img">',
           '<title>Sluice / Flink ratios</title>', '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="10" y="18" font-size="15" font-weight="bold">Sluice / other, median of {rounds_text}; '
           f'whisker min..max, tick = target</text>']
    if note:
        out.append(f'<text x="10" y="36" fill="#57606a">{svg_escape(note)}</text>')
    for i in range(0, 11):
        r = scale_max * i / 10
        out.append(f'<line x1="{x(r):.1f}" y1="{top - 4}" x2="{x(r):.1f}" y2="{height - bottom + 4}" '
                   f'stroke="#eaeef2"/><text x="{x(r):.1f}" y="{height - bottom + 18}" text-anchor="middle">'
                   f'{r:g}</text>')
    out.append(f'<line x1="{x(1):.1f}" y1="{top - 8}" x2="{x(1):.1f}" y2="{height - bottom + 6}" stroke="#57606a" '
               f'stroke-dasharray="4 3"/>')
    out.append(f'<text x="{label_w + plot_w / 2:.0f}" y="{height - 10}" text-anchor="middle">ratio (1 = parity)'
               f'</text>')
    for n, (what, higher, target, (lo, med, hi), word) in enumerate(rows):
        y = top + n * row_h
        colour = "#8c959f" if target is None or "met" not in word and "MISSED" not in word else (
            "#1a7f37" if "met" in word and "MISSED" not in word else "#d1242f")
        label = what + ("" if higher else " (lower is better)")
        out.append(f'<g class="ratio" data-figure="{svg_escape(what)}" data-median="{med:.4f}">'
                   f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{svg_escape(label)}</text>'
                   f'<rect x="{label_w}" y="{y + 4}" width="{x(med) - label_w:.1f}" height="{row_h - 8}" '
                   f'fill="{colour}"><title>{svg_escape(what)}: median {med:.2f}, {lo:.2f}..{hi:.2f}; '
                   f'{svg_escape(word)}</title></rect>'
                   f'<line x1="{x(lo):.1f}" y1="{y + row_h / 2:.1f}" x2="{x(hi):.1f}" y2="{y + row_h / 2:.1f}" '
                   f'stroke="#1f2328"/>'
                   f'<text x="{x(max(hi, med)) + 6:.1f}" y="{y + 15}">{med:.2f}</text>')
        if target is not None:
            out.append(f'<line x1="{x(target):.1f}" y1="{y + 1}" x2="{x(target):.1f}" y2="{y + row_h - 1}" '
                       f'stroke="#1f2328" stroke-width="2"/>')
        out.append('</g>')
    if not rows:
        out.append(f'<text x="{width / 2:.0f}" y="{top + 14}" text-anchor="middle">no compared figure</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        chart, rounds_note = chart_rows_from_table(sys.argv[2])
        with open(sys.argv[sys.argv.index("--svg") + 1], "w") as svg_file:
            svg_file.write(ratio_chart(chart, rounds_note, os.environ.get("CHART_NOTE", "")))
        sys.exit(0)
    directory = sys.argv[1]
    noise_limit = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 0.15
    if "--svg" in sys.argv:
        target_file = sys.argv[sys.argv.index("--svg") + 1]
        chart, rounds_note = chart_rows_from_logs(directory, noise_limit)
        with open(target_file, "w") as svg_file:
            svg_file.write(ratio_chart(chart, rounds_note, os.environ.get("CHART_NOTE", "")))
    elif sys.argv[-1] == "--noisy":
        noisy_groups(directory, noise_limit)
    else:
        table(directory, noise_limit)
