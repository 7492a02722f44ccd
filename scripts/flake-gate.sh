#!/usr/bin/env bash
# The flake gate: the whole e2e suite (Chromium and WebKit) N times in a row (default 3) while scripts/cpu-load.ts
# keeps every core busy, stopping at the first failure. Run it before resolving any change to tests or the service
# worker. Each run's time and its slowest tests (with their share of their time limit) go to test-results/flake-gate/.
#   bash scripts/flake-gate.sh [runs]        (builds once first; FLAKE_GATE_SKIP_BUILD=1 reuses dist/ and dist-base/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
out=test-results/flake-gate
mkdir -p "$out"
if [ -z "${FLAKE_GATE_SKIP_BUILD:-}" ]; then
  npx astro build --silent
  BASE_PATH=/saturate/ OUT_DIR=dist-base SITE_URL=https://saturate.example npx astro build --silent
fi
node scripts/cpu-load.ts &
load=$!
trap 'kill $load 2>/dev/null || true' EXIT
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if node scripts/test.ts --only=e2e --skip-build >"$out/run-$i.log" 2>&1; then status=passed; else status=failed; fi
  cp test-results/e2e.json "$out/run-$i.json" 2>/dev/null || true
  echo "flake gate: run $i of $runs $status in $(($(date +%s) - start)) s ($(tail -n 1 "$out/run-$i.log"))"
  node scripts/slowest-tests.ts "$out/run-$i.json" 10 | sed 's/^/  /'
  [ "$status" = passed ] || exit 1
done
echo "flake gate: $runs of $runs runs passed under load"
