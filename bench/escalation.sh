#!/usr/bin/env bash
# Escalation step latency with many open incidents (SPEC §10, issue 16):
# the longest delay between an escalation step's due time and its arrival
# at the webhook.
#
#   bench/escalation.sh                        # build, 1,000 incidents on SQLite
#   SKIP_BUILD=1 INCIDENTS=200 bench/escalation.sh
#   ENGINES=sqlite,postgres bench/escalation.sh
#
# A fresh hub per engine (release build, access log off). bench/escalation.py
# starts a webhook receiver, creates a two-step policy (step 1, wait 1 min,
# step 2) on two webhook channels and INCIDENTS heartbeat monitors using it,
# takes each up and then down with a failure ping (INCIDENTS down incidents
# open within a few seconds; step 1 rides with each alert), reads each
# incident's escalation.next_at, and waits for every step 2 at the
# receiver. The figure is arrival - next_at: the escalation job's pass, the
# step's transaction, and the outbox delivery of the webhook, for all
# INCIDENTS steps that come due within those few seconds. Also printed: how
# late the step was queued (its timeline entry, whole seconds) and whether
# any step was missing or arrived twice (exit 1 then).
#
# Environment: INCIDENTS=1000 ENGINES=sqlite (or sqlite,postgres / postgres)
#   SKIP_BUILD=1 PINGTXT_BIN=path
# Output: stdout and bench/out/escalation-<date>.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

INCIDENTS=${INCIDENTS:-1000}

need_pkgs "curl python3" curl python3
parse_engines
build_firstok
build_pingtxt

bench_begin escalation HUB_PID
# The hub runs as a copy named "hubd" (see ping.sh: a broad pkill elsewhere
# once stopped a bench hub).
HUBD="$TMP/hubd"
cp "$BIN" "$HUBD"

say "pingtxt escalation bench — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), binary $BIN, $(nproc) cores, $(uname -r)"
say "$INCIDENTS down incidents on a two-step policy (1 min between steps); engines: ${ENGINE_LIST[*]}"

if has_engine postgres; then
    PG_KEEP_LOG="$OUT_DIR/escalation-$STAMP.pg-server.log"
    pg_start
    say "PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT: $(pg_settings)"
fi

bench_engine() {
    local engine=$1 url="" dir="$TMP/hub-$1"
    HUB_PORT=$("$FIRSTOK" port)
    [[ $engine == postgres ]] && url=$(pg_createdb escbench)
    hub_env "$HUB_PORT" "$dir" "$url"
    HUB="http://127.0.0.1:$HUB_PORT"
    HUB_LOG="$dir/serve.log"
    "$HUBD" serve >"$HUB_LOG" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$HUB_PORT" 15000 /healthz || { tail -n 20 "$HUB_LOG" >&2; die "pingtxt serve ($engine) did not answer"; }
    TOKEN=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name escalation-bench)
    [[ $TOKEN == pmk_* ]] || die "token create printed '$TOKEN'"
    say ""
    say "== $engine (loadavg before: $(loadavg); $(busy_others))"
    local k0 k1 line rc=0
    k0=$(cpu_ticks "$HUB_PID")
    line=$(python3 "$BENCH_DIR/escalation.py" "$HUB" "$TOKEN" "$INCIDENTS") || rc=$?
    k1=$(cpu_ticks "$HUB_PID")
    say "  $line"
    say "  hub CPU $(awk -v k="$((k1 - k0))" -v h="$CLK_TCK" 'BEGIN { printf "%.1f", k / h }') s, RSS $(rss_kb "$HUB_PID") kB; loadavg after: $(loadavg)"
    stop_pid "$HUB_PID"; HUB_PID=""
    errs=$(grep -ci -e error -e warn "$HUB_LOG" || true)
    say "  serve log: $(wc -l <"$HUB_LOG") lines, $errs with error/warn"
    grep -i -e error -e warn "$HUB_LOG" | head -n 5 | sed 's/^/    /' | tee -a "$OUT" || true
    cp "$HUB_LOG" "$OUT_DIR/escalation-$STAMP.$engine.serve.log"
    [[ $rc == 0 ]] || die "$engine: a step was missing or arrived twice (see above)"
}

for engine in "${ENGINE_LIST[@]}"; do bench_engine "$engine"; done
say "saved: $OUT (hub logs: $OUT_DIR/escalation-$STAMP.<engine>.serve.log)"
