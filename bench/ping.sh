#!/usr/bin/env bash
# Heartbeat ping throughput of `pingtxt serve`, and a durability check.
#
#   bench/ping.sh                       # build, bench, print + save
#   SKIP_BUILD=1 RUNS=2 bench/ping.sh
#
# nginx (static file) for the ratio in the same run, and the hub (release
# build, temp DB, access log off) with PING_MONITORS heartbeat monitors under
# wrk -t2 -cCONNECTIONS GET /ping/{key} (the wrk connections spread over the
# monitors' keys by a small Lua script when there are several). A run takes
# DURATION of each, in SLICES alternating windows (nginx, hub, nginx, hub,
# ...): this machine's speed drifts by a third within seconds, and two 10 s
# windows one after the other measured that drift as much as the hub (nginx
# alone 81k then 110k req/s). Alternating windows expose both to the same
# drift; each side's rate is its requests over its seconds, p99 the worst
# window's. SLICES=1 is the earlier form: all of nginx, then all of the hub. A 200 comes only after the SQLite commit, so right
# after the run `SELECT count(*) FROM heartbeat_pings` (sqlite3 CLI) must
# equal wrk's completed 2xx requests (± the requests still in flight when
# wrk stopped, at most CONNECTIONS); both numbers are printed. Pings are
# pruned only by the hourly retention job, so nothing is dropped in between.
#
# ENGINES=sqlite,postgres runs the same on each engine in turn, in one run:
# a fresh hub per engine (PostgreSQL: a throwaway cluster from bench/pg.sh,
# fsync on, the count taken with psql), the nginx reference before each, and
# a summary with PostgreSQL's rate as a ratio to SQLite's (the reference) and
# the PostgreSQL server's CPU during the run.
#
# Targets (issue): >= 15,000 pings/s on SQLite, >= 10,000/s durable on PostgreSQL.
# Environment: DURATION=10s (whole seconds) SLICES=5 THREADS=2 CONNECTIONS=64
#   RUNS=1 PING_MONITORS=1
#   ENGINES=sqlite (or sqlite,postgres / postgres) SKIP_BUILD=1 PINGTXT_BIN=path
#   PG_STATS=1: pg_stat_statements on, its top statements printed after each
#   PostgreSQL run (costs a little server CPU; for the diagnosis, not the figure)
#   PERF=1: perf record the hub during the first run (bench/out/ping-<date>.perf.txt)
# Output: stdout and bench/out/ping-<date>.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

DURATION=${DURATION:-10s}
SLICES=${SLICES:-5}
SECONDS_TOTAL=${DURATION%s}
[[ $SECONDS_TOTAL =~ ^[0-9]+$ && $SLICES =~ ^[0-9]+$ && $SLICES -ge 1 && $SECONDS_TOTAL -ge $SLICES ]] \
    || die "DURATION ($DURATION) must be whole seconds, at least SLICES ($SLICES)"
SLICE_SECONDS=$((SECONDS_TOTAL / SLICES))
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
RUNS=${RUNS:-1}
PING_MONITORS=${PING_MONITORS:-1}
TARGET_RPS=15000
TARGET_RPS_PG=10000

need_pkgs "wrk nginx curl python3 sqlite3" wrk nginx-light curl python3 sqlite3
parse_engines
build_firstok
build_pingtxt

bench_begin ping HUB_PID NGINX_PID
# The hub runs as a copy named "hubd" (with "token create" from the original):
# on this shared machine another session's broad "pkill pingtxt" once stopped
# the bench hub mid-run.
HUBD="$TMP/hubd"

say "pingtxt heartbeat ping bench — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), binary $BIN, $(nproc) cores, $(uname -r)"
say "wrk -t$THREADS -c$CONNECTIONS --latency, $SLICES alternating windows of ${SLICE_SECONDS}s each for nginx and the hub per run; $PING_MONITORS heartbeat monitor(s); access log off; engines: ${ENGINE_LIST[*]}"

NGINX_PORT=$("$FIRSTOK" port)
mkdir -p "$TMP/www"
printf '{"status":"ok"}' >"$TMP/www/healthz"
start_nginx "$TMP" "$NGINX_PORT"

if has_engine postgres; then
    PG_KEEP_LOG="$OUT_DIR/ping-$STAMP.pg-server.log"
    pg_start
    say "PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT: $(pg_settings)"
fi
cp "$BIN" "$HUBD"
SUMMARY="$TMP/summary.tsv"
: >"$SUMMARY"

# One engine: a fresh hub and database, PING_MONITORS heartbeats, RUNS runs.
bench_engine() {
    local engine=$1 url="" dir="$TMP/hub-$1"
    HUB_PORT=$("$FIRSTOK" port)
    [[ $engine == postgres ]] && url=$(pg_createdb pingbench)
    hub_env "$HUB_PORT" "$dir" "$url"
    HUB="http://127.0.0.1:$HUB_PORT"
    HUB_LOG="$dir/serve.log"
    if [[ $engine == postgres ]]; then
        db_pings() { pg_psql pingbench 'SELECT count(*) FROM heartbeat_pings'; }
    else
        DB=$PINGTXT_DATABASE_PATH
        db_pings() { sqlite3 "$DB" 'PRAGMA busy_timeout=5000; SELECT count(*) FROM heartbeat_pings;' | tail -n1; }
    fi
    "$HUBD" serve >"$HUB_LOG" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$HUB_PORT" 15000 /healthz || { tail -n 20 "$HUB_LOG" >&2; die "pingtxt serve ($engine) did not answer"; }
    TOKEN=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name ping-bench)
    [[ $TOKEN == pmk_* ]] || die "token create printed '$TOKEN'"
    python3 "$BENCH_DIR/api.py" heartbeat "$HUB" "$TOKEN" "$PING_MONITORS" 60 60 >"$dir/urls"
    mapfile -t URLS <"$dir/urls"
    [[ ${#URLS[@]} == "$PING_MONITORS" ]] || die "heartbeat creation printed ${#URLS[@]} URLs"
    code=$(curl -s -o /dev/null -w '%{http_code}' "${URLS[0]}")
    [[ $code == 200 ]] || die "GET ${URLS[0]} -> $code"
    say ""
    say "== $engine: ping URL ${URLS[0]}$([[ $PING_MONITORS -gt 1 ]] && echo " (+$((PING_MONITORS - 1)) more)"); healthz $(curl -fsS "$HUB/healthz" | tr -d '\n')"

    # Several keys: each wrk connection picks a path round-robin (Lua).
    WRK_SCRIPT=()
    if [[ $PING_MONITORS -gt 1 ]]; then
        {
            echo 'local paths = {'
            for u in "${URLS[@]}"; do printf '  "%s",\n' "${u#http://*/}" | sed 's|^  "|  "/|'; done
            echo '}'
            echo 'local n = 0'
            echo 'function setup(thread) n = n + 1; thread:set("first", n) end'
            echo 'local i = 0'
            echo 'function init(args) i = tonumber(first) or 0 end'
            echo 'function request() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end'
        } >"$dir/paths.lua"
        WRK_SCRIPT=(-s "$dir/paths.lua")
    fi

    local target=$TARGET_RPS
    [[ $engine == postgres ]] && target=$TARGET_RPS_PG
    say "$(printf '%-14s %10s %9s %8s %8s %10s %10s %8s  %s' target 'req/s' 'p99 ms' 'x nginx' 'non-2xx' 'wrk done' 'db rows' 'diff' 'socket errors / load')"
    for run in $(seq "$RUNS"); do
        say "run $run/$RUNS (loadavg before: $(loadavg); $(busy_others))"
        # Alternating windows; sums of requests, 2xx, socket errors and hub
        # CPU over them, and the worst window's p99.
        local n_req n_s n_p99 n_non2xx n_errs h_req h_s h_p99 h_non2xx h_errs k_sum=0 p_sum=0
        window_reset n; window_reset h
        before=$(db_pings)
        for slice in $(seq "$SLICES"); do
            raw=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SLICE_SECONDS}s" --latency "http://127.0.0.1:$NGINX_PORT/healthz")
            window_add n "$raw"
            k0=$(cpu_ticks "$HUB_PID")
            p0=0; [[ $engine == postgres ]] && { [[ $slice == 1 ]] && pg_stat_reset pingbench; p0=$(pg_cpu_ticks); }
            [[ ${PERF:-0} == 1 && $run == 1 && $slice == 1 ]] && perf_start "$HUB_PID" "$OUT_DIR/ping-$STAMP.$engine.perf" "$SLICE_SECONDS"
            raw=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SLICE_SECONDS}s" --latency "${WRK_SCRIPT[@]}" "${URLS[0]}")
            k1=$(cpu_ticks "$HUB_PID")
            p1=0; [[ $engine == postgres ]] && p1=$(pg_cpu_ticks)
            k_sum=$((k_sum + k1 - k0)); p_sum=$((p_sum + p1 - p0))
            if [[ ${PERF:-0} == 1 && $run == 1 && $slice == 1 ]]; then
                perf_report "$OUT_DIR/ping-$STAMP.$engine.perf"
                say "  (perf record -F 999 -g on the hub during the first window; profile: $OUT_DIR/ping-$STAMP.$engine.perf.txt)"
            fi
            printf '## %s run %s window %s\n%s\n' "$engine" "$run" "$slice" "$raw" >>"$TMP/wrk-raw.txt"
            window_add h "$raw"
        done
        after=$(db_pings)
        nginx_rps=$(window_rate "$n_req" "$n_s")
        rps=$(window_rate "$h_req" "$h_s")
        p99=$h_p99; non2xx=$h_non2xx; errs=${h_errs:--}
        say "$(printf '%-14s %10.0f %9.2f %8s %8s %10s %10s %8s  %s' 'nginx static' "$nginx_rps" "$n_p99" 1.00x "$n_non2xx" "$n_req" - - "${n_errs:--}")"
        ok_n=$((h_req - non2xx))
        rows=$((after - before))
        ratio=$(awk -v a="$rps" -v b="$nginx_rps" 'BEGIN { printf "%.2fx", (b > 0) ? a / b : 0 }')
        say "$(printf '%-14s %10.0f %9.2f %8s %8s %10s %10s %+8d  %s' '/ping/{key}' "$rps" "$p99" "$ratio" "$non2xx" "$ok_n" "$rows" "$((rows - ok_n))" "$errs")"
        verdict=$(awk -v a="$rps" -v t="$target" 'BEGIN { if (a >= t) print "ok"; else print "MISSED" }')
        # Each window's wrk stops with up to CONNECTIONS pings in flight,
        # which the hub still commits.
        durable=$(awk -v d="$((rows - ok_n))" -v c="$((CONNECTIONS * SLICES))" 'BEGIN { if (d >= 0 && d <= c) print "ok"; else print "MISMATCH" }')
        hub_s=$(awk -v k="$k_sum" -v h="$CLK_TCK" 'BEGIN { printf "%.1f", k / h }')
        pg_s=$(awk -v k="$p_sum" -v h="$CLK_TCK" 'BEGIN { printf "%.1f", k / h }')
        say "  pings/s $rps (target >= $target: $verdict); durability: $rows rows for $ok_n completed 2xx (rows - done = $((rows - ok_n)), allowed 0..$((CONNECTIONS * SLICES)): $durable)"
        say "  hub CPU during its windows $hub_s s$([[ $engine == postgres ]] && echo ", PostgreSQL server CPU $pg_s s"), RSS $(rss_kb "$HUB_PID") kB, $(threads_of "$HUB_PID") threads; loadavg after: $(loadavg)"
        if [[ $engine == postgres && ${PG_STATS:-0} == 1 ]]; then
            say "  pg_stat_statements during the run (calls, total, mean, rows, query):"
            pg_stat_top pingbench 10 | sed 's/^/   /' | tee -a "$OUT"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$engine" "$run" "$rps" "$p99" "$nginx_rps" "$ok_n" "$rows" "$durable" "$hub_s" "$pg_s" "$verdict" >>"$SUMMARY"
    done

    # Once more after a clean stop: nothing acknowledged may be lost on shutdown.
    total_before_stop=$(db_pings)
    stop_pid "$HUB_PID"; HUB_PID=""
    say "rows after SIGTERM: $(db_pings) (before stop: $total_before_stop; includes the 1 check ping)"
    errs=$(grep -ci -e error -e warn "$HUB_LOG" || true)
    say "serve log ($engine): $(wc -l <"$HUB_LOG") lines, $errs with error/warn"
    grep -i -e error -e warn "$HUB_LOG" | head -n 5 | sed 's/^/  /' | tee -a "$OUT" || true
    cp "$HUB_LOG" "$OUT_DIR/ping-$STAMP.$engine.serve.log"
}

for engine in "${ENGINE_LIST[@]}"; do bench_engine "$engine"; done

# Summary: PostgreSQL against SQLite (the reference) in this run.
say ""
say "== summary (ratio x sqlite: mean pings/s of the engine / mean of sqlite in this run)"
say "$(printf '%-9s %4s %10s %9s %8s %8s %11s %8s %8s  %s' engine run 'pings/s' 'p99 ms' 'x nginx' 'x sqlite' durability 'hub CPU' 'pg CPU' target)"
awk -F'\t' '
    { n[$1]++; sum[$1] += $3; row[NR] = $0 }
    END {
        ref = ("sqlite" in n) ? sum["sqlite"] / n["sqlite"] : 0
        for (i = 1; i <= NR; i++) {
            split(row[i], f, "\t")
            xs = (ref > 0) ? sprintf("%.2fx", f[3] / ref) : "-"
            printf "%-9s %4s %10.0f %9.2f %7.2fx %8s %11s %8s %8s  %s\n", f[1], f[2], f[3], f[4], (f[5] > 0) ? f[3] / f[5] : 0, xs, f[8], f[9] "s", (f[1] == "postgres") ? f[10] "s" : "-", f[11]
        }
    }' "$SUMMARY" | tee -a "$OUT"
cp "$TMP/wrk-raw.txt" "$OUT_DIR/ping-$STAMP.wrk.txt"
say "saved: $OUT (raw wrk output: $OUT_DIR/ping-$STAMP.wrk.txt; hub logs: $OUT_DIR/ping-$STAMP.<engine>.serve.log)"
