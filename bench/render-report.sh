#!/usr/bin/env bash
# Takes a headless-Chromium screenshot of a sluice-bench --report page, to check by eye that it renders.
#
#   bench/render-report.sh REPORT.html [SCREENSHOT.png]
#
# Without a report, it makes one first with a short run of the bench jar (build it with
# 'mvn -o -q -pl sluice-bench -am package -DskipTests'):
#   bench/render-report.sh --run [SCREENSHOT.png]
# Needs Debian's chromium package (apt-get install -y chromium). The page has no script and loads nothing, so
# Chromium runs with networking features off.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

if [[ $# -lt 1 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
report="$1"
screenshot="${2:-${report%.html}.png}"
if [[ "$report" == "--run" ]]; then
  report="$(mktemp -d)/sluice-report.html"
  screenshot="${2:-${report%.html}.png}"
  jar="$root/sluice-bench/target/sluice-bench.jar"
  [[ -f "$jar" ]] || { echo "render-report.sh: $jar is missing; build it first (see the header)" >&2; exit 2; }
  java -jar "$jar" --producers 4 --consumers 4 --bytes 2g --progress off --report "$report" >&2
fi
[[ -f "$report" ]] || { echo "render-report.sh: no such report: $report" >&2; exit 2; }
browser="$(command -v chromium || command -v chromium-browser || true)"
[[ -n "$browser" ]] || { echo "render-report.sh: chromium is not installed (apt-get install -y chromium)" >&2; exit 2; }

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=800,1860 \
  --screenshot="$(realpath -m "$screenshot")" "file://$(realpath "$report")" >/dev/null 2>&1
[[ -s "$screenshot" ]] || { echo "render-report.sh: chromium wrote no screenshot" >&2; exit 1; }
echo "$screenshot"
