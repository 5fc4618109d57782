#!/usr/bin/env bash
# Sluice next to Apache Flink with TLS on both sides: bulk and 100-byte records per TLS mode, through
# the external Flink harness (PEER_DIR/run.sh with SSL=MODE). The plain comparison is bench/compare-with-flink.sh.
#
# Runs Sluice's JMH scenarios (sluice-bench/target/sluice-bench.jar jmh) and the Flink peer harness
# ($PEER_DIR/run.sh, which measures Flink's own network stack and raw Netty/NIO loopback) one
# after the other, ROUNDS times, swapping which goes first each round so drift hits both alike.
# Then prints, per figure, the median over the rounds and the ratio Sluice/Flink.
#
# Usage:   bench/compare-with-flink.sh            (builds the jar first if it is missing)
# Env:     ROUNDS (3), WARM (3) and MEAS (10): warm-up and measured seconds per figure, for both sides;
#          LINKS (tcp): Sluice links to measure, e.g. "tcp,local,inprocess" (only tcp is compared);
#          ONLY: passed to run.sh (figure groups of the peer: bulk, records, official, latency, raw);
#          PEER_DIR (the external Flink harness, a directory with run.sh; no default), OUT_DIR (target/compare-DATE), JAVA (java);
#          SSL: TLS modes to compare, e.g. "off jdk openssl": then only bulk and 100-byte records are measured,
#          each mode on both sides in every round (Sluice: JMH -p ssl=MODE; Flink: run.sh SSL=MODE), and the table
#          shows every figure per mode plus the TLS cost (TLS / off) per side. Unset: the plain comparison.
# Output:  the table on stdout; every raw log and JMH JSON file under OUT_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PEER_DIR="${PEER_DIR:-}"  # the external Flink harness (a directory with run.sh); no default
ROUNDS="${ROUNDS:-3}"
WARM="${WARM:-3}"
MEAS="${MEAS:-10}"
LINKS="${LINKS:-tcp}"
SSL_MODES="${SSL:-}"
JAVA="${JAVA:-java}"
OUT_DIR="${OUT_DIR:-$ROOT/target/compare-$(date -u +%Y%m%dT%H%M%SZ)}"
JAR="$ROOT/sluice-bench/target/sluice-bench.jar"
# The same JVM flags as the peer harness uses for every Flink figure.
JVM_FLAGS="-Xms2g -Xmx2g -XX:MaxDirectMemorySize=2g -XX:+UseG1GC \
--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED"

[[ -x "$PEER_DIR/run.sh" ]] || { echo "no Flink peer harness at $PEER_DIR/run.sh (set PEER_DIR)" >&2; exit 2; }
if [[ ! -f "$JAR" ]]; then
  echo "# building $JAR" >&2
  (cd "$ROOT" && mvn -B -q -pl sluice-bench -am package -DskipTests)
fi
mkdir -p "$OUT_DIR"

# One Sluice round: every JMH scenario on the chosen links, one fork each, then the JMH JSON
# turned into lines shaped like the peer's ("sluice.bulk.1ch GBps=... buffers_per_s=...").
sluice_round() {
  local round=$1 mode=${2:-} tag=$1${2:+-$2}
  local json="$OUT_DIR/sluice-$tag.json" select='io.sluice.bench.jmh.*' extra=()
  if [[ -n "$mode" ]]; then
    # TLS comparison: bulk and 100-byte records only, over TCP, with this TLS mode.
    select='io.sluice.bench.jmh.(Bulk|Record)ThroughputBenchmark'
    extra=(-p ssl="$mode" -p recordBytes=100)
  fi
  # shellcheck disable=SC2086
  "$JAVA" -Djmh.ignoreLock=true -jar "$JAR" jmh -f 1 -wi "$WARM" -w 1s -i "$MEAS" -r 1s -jvmArgs "$JVM_FLAGS" -p link="$LINKS" \
      "${extra[@]}" -rf json -rff "$json" "$select" >"$OUT_DIR/sluice-$tag.jmh.txt" 2>&1 \
    || { echo "# Sluice round $tag failed; see $OUT_DIR/sluice-$tag.jmh.txt" >&2; tail -20 "$OUT_DIR/sluice-$tag.jmh.txt" >&2; }
  [[ -f "$json" ]] || return 0
  python3 - "$json" >"$OUT_DIR/sluice-$tag.log" <<'PY'
import json, sys
FULL_BUFFER = 32768  # bytes on the wire per bulk operation: one 32 KiB buffer, as the peer counts
for r in json.load(open(sys.argv[1])):
    bench = r["benchmark"].rsplit(".", 2)[-2]
    p = r.get("params", {})
    link = p.get("link", "tcp")
    suffix = "" if link == "tcp" else "." + link
    if p.get("ssl", "off") != "off":
        suffix += ".tls-" + p["ssl"]  # the peer's naming: flink.bulk.1ch.tls-jdk
    m = r["primaryMetric"]
    score = m["score"]
    if bench == "BulkThroughputBenchmark":
        print(f"sluice.bulk.{p['channels']}ch{suffix} GBps={score * FULL_BUFFER / 1e9:.3f} buffers_per_s={score:.0f}")
    elif bench == "RecordThroughputBenchmark":
        name = "long" if p["recordBytes"] == "8" else "b" + p["recordBytes"]
        mbps = score * int(p["recordBytes"]) / 1e6
        print(f"sluice.records.{name}.1w.1ch.100ms{suffix} records_per_s={score:.0f} MBps={mbps:.1f}")
    elif bench == "ManyChannelsBenchmark":
        print(f"sluice.records.long.{p['shape']}.100ms{suffix} records_per_s={score:.0f}")
    elif bench == "RoundTripLatencyBenchmark":
        q = m["scorePercentiles"]  # microseconds per round trip; one way is half of it
        print(f"sluice.latency.1rec{suffix} one_way_us_p50={q['50.0'] / 2:.1f} p99={q['99.0'] / 2:.1f} "
              f"p999={q['99.9'] / 2:.1f} rtt_us_p50={q['50.0']:.1f}")
PY
}

flink_round() {
  local round=$1 mode=${2:-} tag=$1${2:+-$2}
  if [[ -n "$mode" ]]; then
    SSL="$mode" ONLY='bulk|b100' WARM="$WARM" MEAS="$MEAS" "$PEER_DIR/run.sh" >"$OUT_DIR/flink-$tag.log" 2>&1 \
      || echo "# Flink round $tag failed; see $OUT_DIR/flink-$tag.log" >&2
  else
    WARM="$WARM" MEAS="$MEAS" "$PEER_DIR/run.sh" >"$OUT_DIR/flink-$tag.log" 2>&1 \
      || echo "# Flink round $tag failed; see $OUT_DIR/flink-$tag.log" >&2
  fi
}

# shellcheck disable=SC2206
modes=($SSL_MODES)
(( ${#modes[@]} > 0 )) || modes=("")
for round in $(seq 1 "$ROUNDS"); do
  for mode in "${modes[@]}"; do
    if (( round % 2 == 1 )); then
      echo "# round $round/$ROUNDS ${mode:+(ssl=$mode) }: Sluice, then Flink" >&2
      sluice_round "$round" "$mode"; flink_round "$round" "$mode"
    else
      echo "# round $round/$ROUNDS ${mode:+(ssl=$mode) }: Flink, then Sluice" >&2
      flink_round "$round" "$mode"; sluice_round "$round" "$mode"
    fi
  done
done

echo "# $(date -u +%FT%TZ); $(nproc) cpus, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
echo "# $("$JAVA" -version 2>&1 | head -1); $ROUNDS rounds, ${WARM}s warm-up + ${MEAS}s measured per figure; logs in $OUT_DIR"
python3 - "$OUT_DIR" "$SSL_MODES" <<'PY'
import glob, os, re, statistics, sys
out = sys.argv[1]
ssl_modes = sys.argv[2].split()
values = {}
for path in sorted(glob.glob(os.path.join(out, "*-*.log"))):
    for line in open(path):
        parts = line.split()
        if not parts or line.startswith("#") or "." not in parts[0]:
            continue
        for kv in parts[1:]:
            m = re.fullmatch(r"([A-Za-z0-9_]+)=([-0-9.eE]+)", kv)
            if m:
                values.setdefault((parts[0], m.group(1)), []).append(float(m.group(2)))

def median(figure, metric):
    xs = values.get((figure, metric))
    return (statistics.median(xs), len(xs)) if xs else (None, 0)

# (what, Sluice figure, Flink-side figure, metric, scale, unit, higher is better, target ratio)
ROWS = [
    ("bulk, 1 channel", "sluice.bulk.1ch", "flink.bulk.1ch", "GBps", 1, "GB/s", True, 1.25),
    ("bulk, 4 channels", "sluice.bulk.4ch", "flink.bulk.4ch", "GBps", 1, "GB/s", True, 1.25),
    ("8-byte records, 1 channel", "sluice.records.long.1w.1ch.100ms", "flink.records.long.1w.1ch.100ms", "records_per_s", 1e-6, "M rec/s", True, None),
    ("100-byte records, 1 channel", "sluice.records.b100.1w.1ch.100ms", "flink.records.b100.1w.1ch.100ms", "records_per_s", 1e-6, "M rec/s", True, 1.25),
    ("8-byte, 100 ch (1x100 vs Flink 4w x 100)", "sluice.records.long.1x100.100ms", "flink.records.long.4w.100ch.100ms", "records_per_s", 1e-6, "M rec/s", True, None),
    ("8-byte, 100 ch (10x10 vs Flink 4w x 100)", "sluice.records.long.10x10.100ms", "flink.records.long.4w.100ch.100ms", "records_per_s", 1e-6, "M rec/s", True, None),
    ("latency one-way p50, flush 0", "sluice.latency.1rec", "flink.latency.1rec", "one_way_us_p50", 1, "us", False, 1.0),
    ("latency one-way p99, flush 0", "sluice.latency.1rec", "flink.latency.1rec", "p99", 1, "us", False, None),
    ("bulk 1 ch vs raw Netty NIO 32k", "sluice.bulk.1ch", "netty.nio.discard.32k", "GBps", 1, "GB/s", True, 0.70),
    ("bulk 1 ch vs raw Netty epoll 32k", "sluice.bulk.1ch", "netty.epoll.discard.32k", "GBps", 1, "GB/s", True, 0.70),
]
if ssl_modes:
    # TLS comparison: the two scenarios per mode; the cost of TLS is the ratio to mode "off" on the same side.
    def name(figure, mode):
        return figure if mode == "off" else f"{figure}.tls-{mode}"
    TLS_ROWS = [
        ("bulk, 1 channel", "sluice.bulk.1ch", "flink.bulk.1ch", "GBps", 1, "GB/s"),
        ("bulk, 4 channels", "sluice.bulk.4ch", "flink.bulk.4ch", "GBps", 1, "GB/s"),
        ("100-byte records, 1 channel", "sluice.records.b100.1w.1ch.100ms", "flink.records.b100.1w.1ch.100ms",
         "records_per_s", 1e-6, "M rec/s"),
    ]
    print(f"{'figure':<30} {'ssl':<8} {'unit':<8} {'Sluice':>9} {'Flink':>9} {'S/F':>6} {'S tls/off':>10} {'F tls/off':>10}")
    for what, ours, theirs, metric, scale, unit in TLS_ROWS:
        a_off, _ = median(name(ours, "off"), metric)
        b_off, _ = median(name(theirs, "off"), metric)
        for mode in ssl_modes:
            a, _ = median(name(ours, mode), metric)
            b, _ = median(name(theirs, mode), metric)
            fmt = lambda v, w: f"{v * scale:{w}.2f}" if v is not None else f"{'-':>{w}}"
            ratio = lambda x, y: f"{x / y:.2f}" if x is not None and y else "-"
            print(f"{what:<30} {mode:<8} {unit:<8} {fmt(a, 9)} {fmt(b, 9)} {ratio(a, b):>6} "
                  f"{ratio(a, a_off) if mode != 'off' else '':>10} {ratio(b, b_off) if mode != 'off' else '':>10}")
    tls = sorted({line.split()[0] + " " + kv for path in glob.glob(os.path.join(out, "flink-*.log"))
                  for line in open(path) for kv in line.split() if kv.startswith("tls=")})
    for t in tls:
        print(f"# Flink negotiated: {t}")
    print("# S/F = Sluice / Flink in the same mode; tls/off = that side's TLS figure over its plain one. Medians over the rounds.")
    sys.exit(0)
print(f"{'figure':<42} {'unit':<8} {'Sluice':>9} {'Flink/raw':>10} {'ratio':>7}  target")
for what, ours, theirs, metric, scale, unit, higher, target in ROWS:
    a, na = median(ours, metric)
    b, nb = median(theirs, metric)
    fa = f"{a * scale:9.2f}" if a is not None else f"{'-':>9}"
    fb = f"{b * scale:10.2f}" if b is not None else f"{'-':>10}"
    ratio = a / b if a is not None and b else None
    verdict = ""
    if ratio is not None and target is not None:
        ok = ratio >= target if higher else ratio <= target
        verdict = f"{'>=' if higher else '<='} {target:.2f} {'met' if ok else 'MISSED'}"
    fr = f"{ratio:7.2f}" if ratio is not None else f"{'-':>7}"
    runs = "" if na == nb else f"  (runs: {na} vs {nb})"
    print(f"{what:<42} {unit:<8} {fa} {fb} {fr}  {verdict}{runs}")
print("# ratio = Sluice / Flink (or / raw Netty); for latency lower is better. Medians over the rounds; compare only within one run.")
others = sorted({f for f, _ in values if f.startswith("sluice.") and (f.endswith(".local") or f.endswith(".inprocess"))})
for figure in others:
    metrics = " ".join(f"{k}={statistics.median(v):.3f}" for (f, k), v in sorted(values.items()) if f == figure)
    print(f"# {figure} {metrics}")
PY
