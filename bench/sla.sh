#!/usr/bin/env bash
# SLA report over 90 days for 1,000 monitors (2.16 million hourly and 89,000 daily roll-ups,
# 5,000 down incidents, one maintenance window for all), timed on SQLite and
# on a PostgreSQL server the test support starts on loopback.
# The work is Tests/MonitoringTests/SLABench.swift (skipped without SLA_BENCH).
#   bench/sla.sh                      # debug build of the tests (what CI builds)
#   CONFIG=release bench/sla.sh       # optimised build (slow to compile)
#   SLA_BENCH_MONITORS=200 bench/sla.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="/opt/swift/usr/bin:$PATH" SWIFT_BACKTRACE=enable=no SLA_BENCH=1
CONFIG=${CONFIG:-debug}
mkdir -p bench/out
out="bench/out/sla-$(date -u +%Y%m%dT%H%M%SZ).txt"
if [[ ${SKIP_BUILD:-0} != 1 ]]; then swift build --build-tests -c "$CONFIG" >&2; fi
swift test --skip-build -c "$CONFIG" --filter SLABench 2>&1 | grep -E "^BENCH|✘|error" | tee "$out"
grep -q "^BENCH sla engine=postgres" "$out" || { echo "no PostgreSQL figure (see above)" >&2; exit 1; }
