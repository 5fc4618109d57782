#!/usr/bin/env bash
# Sluice next to Apache Flink 2.3.0 (and raw Netty) on this machine, in one run.
#
# Both sides come from this repository: Sluice's JMH suite (sluice-bench/target/sluice-bench.jar jmh) and its
# one-way latency figure (sluice-bench latency, the Flink peer's shape), and
# bench/flink-peer (Flink's network stack driven through its production path, plus raw Netty loopback).
# The run goes figure group by figure group: each group measures Sluice's scenario and the Flink (and raw
# Netty) figures right after each other, swapping which side goes first every round, so a swing of the
# machine's load hits both sides of a ratio alike. After ROUNDS rounds, the groups whose Sluice/Flink ratio
# still spreads more than NOISE get more rounds, up to MAX_ROUNDS. The summary gives per figure the
# min/median/max of each side, of the per-round ratio and its spread, and a verdict against the figure's
# target ratio (bench/compare-summary.py, ROWS), or "too noisy to conclude". Each JVM is pinned to the same cores (CPUS) when taskset allows.
#
# Usage:   bench/compare-with-flink.sh              (builds the Sluice jar and bench/flink-peer if missing)
#          nice -n 10 bench/compare-with-flink.sh   on a shared machine
# Env:     ROUNDS (3) and MAX_ROUNDS (6): rounds for every group, and the most for a noisy group;
#          NOISE (0.15): the widest ratio spread, (max-min)/median, that counts as conclusive;
#          WARM (3) and MEAS (10): warm-up and measured seconds per figure, both sides (JMH: 1 s iterations);
#          WARM_MANY (15): the warm-up of the many group, both sides: with 10x10's 20 busy threads on 2 vCPUs the
#          JIT's compiler thread gets about a tenth of a CPU, and in the forks that collapsed the hot path's C2
#          compilations finished 10-17 s after the JVM started, so a 3 s warm-up measured C1 code;
#          ONLY (all): figure groups to run, a regex over: bulk1 bulk4 long engine b100 many latency;
#          SPIN_WAIT (50us): the consumer's shuffle.input.spin-wait for the latency group's second Sluice figure
#          (sluice.latency.spin.1rec; the first, sluice.latency.1rec, runs with the library's default, no spin);
#          WIDE_WINDOW (40/32): the bulk1 group's wide-window Sluice figure runs with shuffle.max-buffers-per-subpartition
#          and shuffle.floating-buffers-per-gate set to these (sluice.bulk.1ch.window40-32), against Flink 2.3,
#          whose window (2 exclusive + 8 floating, 10 per subpartition) is fixed in its code, and against Sluice's
#          defaults of the same round (it runs first, so that the default figure and Flink's run back to back);
#          CPUS (0,1 when the machine has 2 or more): taskset CPU list for every JVM; CPUS= to not pin;
#          PEER_CHECK (0): 1 also runs $PEER_DIR/run.sh every round (its figures as "xcheck.*"), to check
#          that the in-repo Flink peer agrees with it; PEER_DIR (the external Flink harness, a directory with run.sh; no default); PEER_ONLY: its ONLY
#          ('bulk|records.long.1w|records.b100|latency|raw'), PEER_BUILD_DIR (target/external-peer-build);
#          EXTRA_JVM_FLAGS (none): appended to the JVM flags of both sides, e.g. -XX:+AlwaysPreTouch (a heap
#          touched up front, as in a JVM that has run for a while; a fresh JVM pays a page fault per new heap page);
#          OUT_DIR (target/compare-DATE), JAVA (java).
# Output:  the table on stdout, then the CPU per record (per buffer for bulk) of both sides by thread role (producer,
#          consumer, the producing side's event loop, the consuming side's, other), which says where a ratio comes
#          from; OUT_DIR/ratios.svg, a bar chart of the ratios (docs/benchmarks.md shows one);
#          every raw log and JMH JSON file under OUT_DIR/round-N/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# With SSL set (e.g. SSL="off jdk openssl"), the TLS comparison runs instead: bulk and 100-byte records per TLS mode
# against Flink's internal TLS, through the external Flink harness in PEER_DIR (the in-repo peer has no TLS yet).
if [[ -n "${SSL:-}" ]]; then
  exec "$ROOT/bench/compare-tls-with-flink.sh" "$@"
fi
ROUNDS="${ROUNDS:-3}"
MAX_ROUNDS="${MAX_ROUNDS:-6}"
NOISE="${NOISE:-0.15}"
WARM="${WARM:-3}"
WARM_MANY="${WARM_MANY:-15}"
MEAS="${MEAS:-10}"
ONLY="${ONLY:-.}"
SPIN_WAIT="${SPIN_WAIT:-50us}"
export WIDE_WINDOW="${WIDE_WINDOW:-40/32}" # compare-summary.py names the figure after it
JAVA="${JAVA:-java}"
PEER_CHECK="${PEER_CHECK:-0}"
PEER_DIR="${PEER_DIR:-}"  # the external Flink harness (a directory with run.sh); no default
PEER_ONLY="${PEER_ONLY:-bulk|records.long.1w|records.b100|latency|raw}"
PEER_BUILD_DIR="${PEER_BUILD_DIR:-$ROOT/target/external-peer-build}" # its own copy: other runs may use the default
OUT_DIR="${OUT_DIR:-$ROOT/target/compare-$(date -u +%Y%m%dT%H%M%SZ)}"
SLUICE_JAR="$ROOT/sluice-bench/target/sluice-bench.jar"
PEER_HOME="$ROOT/bench/flink-peer"
PEER_CP="$PEER_HOME/target/flink-peer.jar:$PEER_HOME/target/lib/*"
# The same JVM flags for every JVM of both sides (those of the external peer harness).
JVM_FLAGS="-Xms2g -Xmx2g -XX:MaxDirectMemorySize=2g -XX:+UseG1GC \
--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED${EXTRA_JVM_FLAGS:+ $EXTRA_JVM_FLAGS}"
# Per-side extras, one place each (e.g. a TLS mode threads through here): JMH -p parameters for Sluice,
# JVM options for the Flink peer, and a suffix every figure name of both sides gets.
SLUICE_PARAMS=(-p link=tcp)
PEER_FLAGS=""
FIGURE_SUFFIX=""

# Pinning: every JVM (and JMH's forked JVM, which inherits it) on the same cores.
if [[ -z "${CPUS+set}" ]]; then
  CPUS=""
  if command -v taskset >/dev/null && (( $(nproc) >= 2 )); then CPUS="0,1"; fi
fi
PIN=()
if [[ -n "$CPUS" ]]; then
  if taskset -c "$CPUS" true 2>/dev/null; then PIN=(taskset -c "$CPUS"); else
    echo "# taskset -c $CPUS is not allowed here; JVMs are not pinned" >&2; CPUS=""; fi
fi

# --- build what is missing (never "mvn install": the local repository is shared) -----------------------
if [[ ! -f "$SLUICE_JAR" ]]; then
  echo "# building $SLUICE_JAR" >&2
  (cd "$ROOT" && mvn -B -q -pl sluice-bench -am package -DskipTests)
fi
if [[ ! -f "$PEER_HOME/target/flink-peer.jar" ]]; then
  echo "# building bench/flink-peer (downloads Flink 2.3.0 once)" >&2
  (cd "$PEER_HOME" && { mvn -B -q -o package >/dev/null 2>&1 || mvn -B -q package; })
fi
if [[ "$PEER_CHECK" == 1 && ! -x "$PEER_DIR/run.sh" ]]; then
  echo "PEER_CHECK=1 but there is no $PEER_DIR/run.sh (set PEER_DIR)" >&2; exit 2
fi
mkdir -p "$OUT_DIR"

# --- figure groups: the Sluice runs, and the peer figures they are compared with ----------------------------
# group id | Sluice runs (";"-separated: a JMH benchmark and parameters, or "sluice-bench COMMAND ..." whose stdout
#            is figure lines; it gets --warmup WARM --measure MEAS) | peer figures (";"-separated FlinkPeer arguments)
# latency: the compared one-way figure comes from 'sluice-bench latency' (the Flink peer's shape: one-way samples
# taken by the consumer on arrival); the JMH round trip A -> B -> A is a figure of its own (sluice.latency.rtt.1rec).
FIGURES=(
  "bulk1|BulkThroughputBenchmark -p channels=1 -p window=$WIDE_WINDOW;BulkThroughputBenchmark -p channels=1|bulk 1;netty nio;netty epoll"
  "bulk4|BulkThroughputBenchmark -p channels=4|bulk 4"
  "long|RecordThroughputBenchmark -p recordBytes=8|records long 1 1 100"
  "engine|RecordThroughputBenchmark -p recordBytes=8 -p recordBuffer=heap -p payload=sequenced -p reader=union|emit long 1 1 100"
  "b100|RecordThroughputBenchmark -p recordBytes=100|records b100 1 1 100"
  "many|ManyChannelsBenchmark -p shape=4x100,1x100,10x10,1x1000|records long 4 100 100"
  "latency|sluice-bench latency;sluice-bench latency --spin-wait $SPIN_WAIT;RoundTripLatencyBenchmark|latency"
)

# One Sluice figure group: each of its runs in its own JVM (JMH: one fork, its JSON turned into figure lines).
sluice_figure() { # round group "run;run;..."
  local round=$1 group=$2 run n=0
  local dir="$OUT_DIR/round-$round"
  IFS=';' read -r -a runs <<<"$3"
  : >"$dir/sluice-$group.log"
  for run in "${runs[@]}"; do
    if [[ "$run" == "sluice-bench "* ]]; then
      # shellcheck disable=SC2086
      "${PIN[@]}" "$JAVA" $JVM_FLAGS -jar "$SLUICE_JAR" ${run#sluice-bench } \
          --warmup "$WARM" --measure "$MEAS" 2>>"$dir/sluice-$group.err" | suffix_names >>"$dir/sluice-$group.log" \
        || echo "# round $round: Sluice '$run' failed; see $dir/sluice-$group.err" >&2
      continue
    fi
    local tag="$group"
    if (( n > 0 )); then tag="$group-$n"; fi
    local json="$dir/sluice-$tag.json" txt="$dir/sluice-$tag.jmh.txt"
    n=$((n + 1))
    # shellcheck disable=SC2086
    "${PIN[@]}" "$JAVA" -jar "$SLUICE_JAR" jmh -f 1 -wi "$WARM" -w 1s -i "$MEAS" -r 1s -jvmArgs "$JVM_FLAGS" \
        "${SLUICE_PARAMS[@]}" -rf json -rff "$json" $run >"$txt" 2>&1 \
      || { echo "# round $round: Sluice $group failed; see $txt" >&2; continue; }
    python3 "$ROOT/bench/jmh-to-lines.py" "$json" "$txt" | suffix_names >>"$dir/sluice-$group.log"
  done
}

# The peer figures of one group, each in its own JVM.
peer_figures() { # round group "args;args;..."
  local round=$1 group=$2 figure
  local dir="$OUT_DIR/round-$round"
  IFS=';' read -r -a figures <<<"$3"
  : >"$dir/flink-$group.log"
  for figure in "${figures[@]}"; do
    # shellcheck disable=SC2086
    timeout 300 "${PIN[@]}" "$JAVA" $JVM_FLAGS $PEER_FLAGS -cp "$PEER_CP" io.sluice.flinkpeer.FlinkPeer \
        --warmup "$WARM" --measure "$MEAS" $figure 2>>"$dir/flink-$group.err" | suffix_names >>"$dir/flink-$group.log" \
      || echo "# round $round: peer figure '$figure' failed; see $dir/flink-$group.err" >&2
  done
}

# The external harness, for the cross-check only: its Flink figures renamed xcheck.*.
shared_peer() { # round
  local dir="$OUT_DIR/round-$1"
  PEER_BUILD_DIR="$PEER_BUILD_DIR" ONLY="$PEER_ONLY" WARM="$WARM" MEAS="$MEAS" "${PIN[@]}" "$PEER_DIR/run.sh" 2>&1 \
    | sed -E 's/^(flink|netty|nio|memcpy)\./xcheck.\1./' >"$dir/xcheck.log" \
    || echo "# round $1: $PEER_DIR/run.sh failed; see $dir/xcheck.log" >&2
}

suffix_names() {
  if [[ -z "$FIGURE_SUFFIX" ]]; then cat; else sed -E "s/^([a-z][^ ]*)/\\1$FIGURE_SUFFIX/"; fi
}

run_group() { # round entry
  local round=$1 group jmh peer
  IFS='|' read -r group jmh peer <<<"$2"
  local WARM="$WARM" # seen by sluice_figure and peer_figures: the same warm-up on both sides
  if [[ "$group" == many ]]; then WARM="$WARM_MANY"; fi
  mkdir -p "$OUT_DIR/round-$round"
  if (( round % 2 == 1 )); then
    sluice_figure "$round" "$group" "$jmh"; peer_figures "$round" "$group" "$peer"
  else
    peer_figures "$round" "$group" "$peer"; sluice_figure "$round" "$group" "$jmh"
  fi
}

selected=()
for entry in "${FIGURES[@]}"; do
  [[ "${entry%%|*}" =~ $ONLY ]] && selected+=("$entry")
done
(( ${#selected[@]} > 0 )) || { echo "ONLY='$ONLY' selects no figure group" >&2; exit 2; }

round=0
todo=("${selected[@]}")
while (( ${#todo[@]} > 0 )); do
  round=$((round + 1))
  echo "# round $round: $(for e in "${todo[@]}"; do printf '%s ' "${e%%|*}"; done)($(date -u +%TZ), load $(cut -d' ' -f1 /proc/loadavg))" >&2
  for entry in "${todo[@]}"; do run_group "$round" "$entry"; done
  if [[ "$PEER_CHECK" == 1 ]]; then shared_peer "$round"; fi
  (( round < MAX_ROUNDS )) || break
  if (( round >= ROUNDS )); then
    noisy=" $(python3 "$ROOT/bench/compare-summary.py" "$OUT_DIR" "$NOISE" --noisy) "
    todo=()
    for entry in "${selected[@]}"; do
      [[ "$noisy" == *" ${entry%%|*} "* ]] && todo+=("$entry")
    done
  fi
done

echo "# $(date -u +%FT%TZ); $(nproc) cpus, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$JAVA" -version 2>&1 | head -1); $round rounds (at least $ROUNDS; noisy groups up to $MAX_ROUNDS), ${WARM}s warm-up (many: ${WARM_MANY}s) + ${MEAS}s measured per figure; pinned to CPUs ${CPUS:-none}; logs in $OUT_DIR"
echo "# Sluice: JMH, link tcp (transport auto); one-way latency: sluice-bench latency (transport auto). Flink 2.3.0: bench/flink-peer, defaults (32 KiB segments, 2 exclusive + 8 floating, 1 Netty thread per side). Same JVM flags: $JVM_FLAGS"
python3 "$ROOT/bench/compare-summary.py" "$OUT_DIR" "$NOISE"
CHART_NOTE="$(date -u +%F) on $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $round round(s)" \
  python3 "$ROOT/bench/compare-summary.py" "$OUT_DIR" "$NOISE" --svg "$OUT_DIR/ratios.svg"
echo "# chart of the ratios: $OUT_DIR/ratios.svg"
