#!/usr/bin/env bash
# Storage at scale: what a stored check result and a roll-up cost on disk,
# how much raw thinning keeps, how long a retention pass holds the writer,
# and the extrapolation to 500,000 monitors every 60 s (docs/storage.md).
#
# The work is Sources/StorageBench (release build): it seeds HOURS hours of
# 60 s results for MONITORS monitors through the Store code (a fleet with
# outages and lone failures, in the order results arrive), runs two real
# retention passes (a catch-up, then an ordinary hourly pass) while a probe
# thread writes one result every 5 ms and keeps its longest wait, and prints
# BENCH lines. Run once per engine; PostgreSQL is a throwaway server on
# loopback (bench/pg.sh), fsync on.
#
#   bench/storage.sh                                   # SQLite, 5,000 monitors, 24 h
#   ENGINES=sqlite,postgres MONITORS=5000 HOURS=24 SAMPLE_MINUTES=10 bench/storage.sh
#   SKIP_BUILD=1 reuses .build/release/StorageBench
#
# Output: stdout and bench/out/storage-<date>.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

MONITORS=${MONITORS:-5000}
HOURS=${HOURS:-24}
SAMPLE_MINUTES=${SAMPLE_MINUTES:-10}

bench_begin storage
parse_engines
build_firstok
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    log "swift build -c release --product StorageBench"
    (cd "$ROOT" && swift build -c release --product StorageBench 2>&1 | tail -n 3 >&2)
fi
SB="$ROOT/.build/release/StorageBench"
[[ -x $SB ]] || die "no StorageBench binary at $SB"

say "# storage: $MONITORS monitors x $HOURS h of 60 s results, raw_sample_minutes=$SAMPLE_MINUTES, engines ${ENGINE_LIST[*]}"
say "# machine: $(nproc) cores, load $(loadavg)"
if has_engine postgres; then
    PG_KEEP_LOG="$OUT_DIR/storage-$STAMP.pg-server.log"
    pg_start
    say "# PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT: $(pg_settings)"
fi

for engine in "${ENGINE_LIST[@]}"; do
    if [[ $engine == postgres ]]; then
        url=$(pg_createdb storage)
    else
        url="sqlite:$TMP/storage.db"
    fi
    say ""
    say "== $engine"
    "$SB" --url "$url" --engine "$engine" --monitors "$MONITORS" --hours "$HOURS" --sample-minutes "$SAMPLE_MINUTES" \
        | tee -a "$OUT"
    if [[ $engine == sqlite ]]; then say "# SQLite file: $(du -b "$TMP/storage.db" | cut -f1) bytes (WAL $(du -b "$TMP/storage.db-wal" 2>/dev/null | cut -f1 || echo 0))"; fi
done
